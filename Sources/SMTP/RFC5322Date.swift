#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// RFC 5322 §3.3 dates in UTC, e.g. `Tue, 1 Jul 2003 10:52:37 +0000`, with English names whatever the locale.
enum RFC5322Date {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]  // Calendar's weekday 1…7
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }()

    static func format(_ date: Date) -> String {
        let whole = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        let parts = utc.dateComponents([.year, .month, .day, .weekday, .hour, .minute, .second], from: whole)
        let (year, month, day) = (parts.year!, parts.month!, parts.day!)
        return "\(weekdays[parts.weekday! - 1]), \(day) \(months[month - 1]) \(year) "
            + "\(twoDigits(parts.hour!)):\(twoDigits(parts.minute!)):\(twoDigits(parts.second!)) +0000"
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
