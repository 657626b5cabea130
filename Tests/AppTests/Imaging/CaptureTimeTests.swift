import Foundation
@testable import Imaging
import NIOCore
import Testing

extension ImagingTests {
    /// The capture time every fixture with the private tags carries (`-DateTimeOriginal`, no offset).
    static let fixtureTakenAt = ISO8601DateFormatter().date(from: "2024-05-01T12:34:56Z")!

    /// When a photo was taken, read from its EXIF before the metadata is stripped.
    @Suite struct CaptureTimeReading {
        static func utc(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

        @Test("DateTimeOriginal with its offset (JPEG, HEIC), without one read as UTC; none without a date")
        func fromUploads() async throws {
            let cases: [(String, Date?)] = [
                ("taken-2019.jpg", Self.utc("2019-05-01T08:00:00Z")),
                ("taken-2021.heic", Self.utc("2022-01-01T04:30:00Z")),
                ("camera.jpg", Self.utc("2024-05-01T12:34:56Z")),
                ("photo.webp", Self.utc("2024-05-01T12:34:56Z")),
                ("small.jpg", nil),
            ]
            for (upload, expected) in cases {
                let probe = try ImageProcessor().probe(try PhotoFixtures.bytes(upload))
                #expect(probe.takenAt == expected, "\(upload)")
            }
        }

        @Test("malformed or impossible dates and offsets are nil, never a wrong moment")
        func parsing() {
            #expect(CaptureTime.parse(dateTimeOriginal: "2019:05:01 10:00:00 (2019:05:01 10:00:00, ASCII, 20 components, 20 bytes)", offset: "+02:00 (+02:00, ASCII, 7 components, 7 bytes)") == Self.utc("2019-05-01T08:00:00Z"))
            #expect(CaptureTime.parse(dateTimeOriginal: "2019:05:01 10:00:00", offset: "-05:30") == Self.utc("2019-05-01T15:30:00Z"))
            #expect(CaptureTime.parse(dateTimeOriginal: "2019:05:01 10:00:00", offset: "nonsense") == Self.utc("2019-05-01T10:00:00Z"), "a bad offset is ignored")
            for bad in ["0000:00:00 00:00:00", "    :  :     :  :  ", "2024:02:30 10:00:00", "2024:13:01 10:00:00", "2024-05-01 10:00:00", "2024:05:01", ""] {
                #expect(CaptureTime.parse(dateTimeOriginal: bad, offset: nil) == nil, "\(bad)")
            }
            #expect(CaptureTime.parse(dateTimeOriginal: nil, offset: "+02:00") == nil)
            #expect(CaptureTime.offsetSeconds("+14:00") == 50400 && CaptureTime.offsetSeconds("+15:00") == nil)
        }
    }
}
