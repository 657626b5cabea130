#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `Date` header's value (RFC 9110 §5.6.7, an IMF-fixdate such as
/// `Sun, 06 Nov 1994 08:49:37 GMT`), made at most once a second. Hummingbird adds its own to what
/// the router answers; this is for the answers `StaticAssetsOnTheLoop` gives itself, one per
/// connection (no lock shared between event loops).
struct HTTPDateHeader {
    private var second = -1
    private var text = ""

    mutating func now() -> String {
        let now = Int(time(nil))
        if now != second { (second, text) = (now, Self.format(secondsSince1970: now)) }
        return text
    }

    static func format(secondsSince1970 seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(twoDigits(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }
}
