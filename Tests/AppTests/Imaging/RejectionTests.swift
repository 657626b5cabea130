import Dispatch
import Foundation
import Imaging
import NIOCore
import Testing

extension ImagingTests {
    @Suite struct Rejection {
        static let brokenUploads: [(file: String, error: ImageError)] = [
            ("empty.jpg", .empty),
            ("not-an-image.txt", .unsupportedFormat),
            ("drawing.svg", .unsupportedFormat),
            ("corrupt.jpg", .unreadable),
            ("truncated.jpg", .truncated),
            ("bomb.png", .tooManyPixels(max: 100_000_000)),
            ("sliver.png", .absurdAspectRatio),
        ]

        @Test func eachBrokenUploadHasItsOwnError() async throws {
            for (file, expected) in Self.brokenUploads {
                let bytes = try PhotoFixtures.bytes(file)
                await #expect(throws: expected, "\(file)") { try await ImageProcessor().processed(bytes) }
            }
            #expect(Set(Self.brokenUploads.map { "\($0.error)" }).count == Self.brokenUploads.count - 1)
        }

        @Test func probeRefusesWhatTheHeaderGivesAway() async throws {
            for (file, expected) in Self.brokenUploads where expected != .truncated {
                await #expect(throws: expected, "\(file)") { try await ImageProcessor().probe(PhotoFixtures.bytes(file)) }
            }
            // The header of a cut-short JPEG is intact: only decoding tells.
            #expect(try await ImageProcessor().probe(PhotoFixtures.bytes("truncated.jpg")).width == 800)
        }

        @Test func theBombIsRefusedFromItsHeader() async throws {
            // 30000x30000 = 900 MP: decoding it would take 900 MB as 8-bit grey, 2.7 GB as RGB, and
            // seconds; the header alone refuses it (bench/images.sh measures time and memory).
            let bomb = try PhotoFixtures.bytes("bomb.png")
            #expect(bomb.readableBytes < 200_000)
            await #expect(throws: ImageError.tooManyPixels(max: 100_000_000)) { try await ImageProcessor().probe(bomb) }
            await #expect(throws: ImageError.tooManyPixels(max: 100_000_000)) { try await ImageProcessor().processed(bomb) }
        }

        @Test func thePixelCapIsConfigurable() async throws {
            // camera.jpg is 1200x800 = 960 000 pixels.
            let strict = ImageProcessor(limits: ImageLimits(maxPixels: 500_000))
            await #expect(throws: ImageError.tooManyPixels(max: 500_000)) { try await strict.processed(PhotoFixtures.bytes("camera.jpg")) }
            let lenient = ImageProcessor(limits: ImageLimits(maxPixels: 1_000_000))
            #expect(try lenient.probe(PhotoFixtures.bytes("camera.jpg")).height == 1200)
        }

        @Test func errorsAreExplained() {
            #expect("\(ImageError.tooManyPixels(max: 100_000_000))" == "the image has more than 100000000 pixels")
            #expect(ImageLimits.maxAspectRatio == 20)
        }
    }
}
