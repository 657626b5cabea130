import Foundation

/// When a photo was taken, from its EXIF fields as libvips reads them: `DateTimeOriginal`
/// ("2019:05:01 10:00:00", local to the camera) and, when the camera wrote it, `OffsetTimeOriginal`
/// ("+02:00"). libvips renders each as "value (value, ASCII, n components, n bytes)".
enum CaptureTime {
    /// The moment, or nil for a missing or malformed date (cameras write "0000:00:00 00:00:00" and
    /// blanks). Without an offset the camera's local time is read as UTC (and marked a local time,
    /// `ImageProbe.takenAtIsLocalTime`, so that pages show it as written).
    static func parse(dateTimeOriginal: String?, offset: String?) -> Date? {
        guard let text = dateTimeOriginal.map(leadingValue), text.utf8.count >= 19 else { return nil }
        let digits = Array(text.utf8.prefix(19))
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = digits[index]
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard digits[4] == UInt8(ascii: ":"), digits[7] == UInt8(ascii: ":"), digits[10] == UInt8(ascii: " "),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1800...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: offset.flatMap(offsetSeconds) ?? 0) ?? .gmt
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        // A day the month does not have (31 April) is refused rather than rolled over.
        guard components.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: components)
    }

    /// "+02:00" or "-05:30" in seconds east of UTC, nil for anything else.
    static func offsetSeconds(_ field: String) -> Int? {
        let text = Array(leadingValue(field).utf8)
        guard text.count == 6, text[0] == UInt8(ascii: "+") || text[0] == UInt8(ascii: "-"), text[3] == UInt8(ascii: ":"),
            let hours = Int(String(decoding: text[1..<3], as: UTF8.self)), let minutes = Int(String(decoding: text[4..<6], as: UTF8.self)),
            hours <= 14, minutes < 60
        else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return text[0] == UInt8(ascii: "-") ? -seconds : seconds
    }

    /// The value before libvips' " (value, type, …)" description.
    private static func leadingValue(_ field: String) -> String {
        guard let open = field.range(of: " (") else { return field.trimmingCharacters(in: .whitespaces) }
        return String(field[..<open.lowerBound]).trimmingCharacters(in: .whitespaces)
    }
}
