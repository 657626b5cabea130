@testable import App
import Foundation
import Testing

/// `CivilTime` gives what Foundation's Gregorian `Calendar` gives, for the moments photos have.
@Suite("Civil time")
struct CivilTimeTests {
    static let zones: [TimeZone?] = [nil, .gmt] + [
        "Europe/Berlin", "America/New_York", "America/St_Johns", "Asia/Kolkata", "Asia/Kathmandu",
        "Australia/Adelaide", "Pacific/Chatham", "Pacific/Kiritimati", "Pacific/Pago_Pago", "America/Sao_Paulo",
    ].map { TimeZone(identifier: $0)! }

    @Test("year, month, day, hour, minute, second and millisecond equal Calendar's, in zones with odd offsets and summer time, 1583–2200")
    func sameAsCalendar() throws {
        var generator = SystemRandomNumberGenerator()
        // 1583-01-01 … 2200-01-01, microseconds as PostgreSQL keeps them.
        let range = -12_212_553_600_000_000 ... 7_258_118_400_000_000
        var moments = (0..<4000).map { _ in Date(timeIntervalSince1970: Double(Int.random(in: range, using: &generator)) / 1_000_000) }
        // Edges: the epoch, the days around it, leap days, the ends of years and of summer time in Berlin.
        moments += [0, -1, -0.000_001, 86_399.999_999, 951_782_400, 951_868_799.5, 1_709_164_800, 4_107_542_399.999,
                    1_711_846_799, 1_711_846_800, 1_729_990_799, 1_729_990_800, -2_208_988_800]
            .map { Date(timeIntervalSince1970: $0) }
        for zone in Self.zones {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone ?? .gmt
            for moment in moments {
                let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: moment)
                let expected = [parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!, parts.nanosecond! / 1_000_000]
                let civil = CivilTime(moment, in: zone)
                let found = [civil.year, civil.month, civil.day, civil.hour, civil.minute, civil.second, civil.millisecond]
                try #require(found == expected, "\(moment.timeIntervalSince1970) in \(zone?.identifier ?? "none")")
            }
        }
    }

    @Test("the API's dates are what they were: yyyy-MM-dd'T'HH:mm:ss.SSS'Z' in UTC")
    func apiDates() {
        #expect(APIDate.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(APIDate.format(Date(timeIntervalSince1970: 1_764_067_140.123_456)) == "2025-11-25T10:39:00.123Z")
        #expect(APIDate.format(Date(timeIntervalSince1970: 951_868_799.999_9)) == "2000-02-29T23:59:59.999Z")
        #expect(APIDate.format(Date(timeIntervalSince1970: -1.5)) == "1969-12-31T23:59:58.500Z")
    }
}
