import Foundation

/// The MS-DOS date and time fields of ZIP headers, plus the Unix time for the "UT" extra field.
/// DOS time has no zone; this writer uses UTC (the server knows no user zone) and 2-second
/// resolution, and clamps to the representable 1980–2107. The "UT" field carries exact UTC seconds
/// for extractors that read it (Info-ZIP, 7-Zip, libarchive).
struct DOSTimestamp: Sendable {
    let time: UInt16
    let date: UInt16
    /// Seconds since 1970 if they fit the signed 32-bit "UT" field, else nil (field omitted).
    let unixTime: Int32?

    init(_ moment: Date) {
        let seconds = Int64(moment.timeIntervalSince1970.rounded(.down))
        unixTime = Int32(exactly: seconds)

        let earliest: Int64 = 315_532_800  // 1980-01-01T00:00:00Z
        let latest: Int64 = 4_354_819_198  // 2107-12-31T23:59:58Z
        let clamped = min(max(seconds, earliest), latest)
        let parts = Self.utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(clamped)))
        date = UInt16((parts.year! - 1980) << 9 | parts.month! << 5 | parts.day!)
        time = UInt16(parts.hour! << 11 | parts.minute! << 5 | parts.second! / 2)
    }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }()
}
