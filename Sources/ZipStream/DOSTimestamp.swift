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
        let days = clamped / 86_400
        let secondOfDay = clamped % 86_400
        let (year, month, day) = Self.civilDate(daysSince1970: days)
        date = UInt16((year - 1980) << 9 | month << 5 | day)
        let hour = secondOfDay / 3600, minute = secondOfDay % 3600 / 60, second = secondOfDay % 60
        time = UInt16(hour << 11 | minute << 5 | second / 2)
    }

    /// Proleptic Gregorian date from a day count (Howard Hinnant's days-to-civil algorithm).
    private static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
