import Foundation

/// The date and wall-clock time a moment shows in a time zone (UTC without one), in the Gregorian
/// calendar, by arithmetic on the day count (Howard Hinnant's `civil_from_days`). A page of photos
/// asked Foundation's `Calendar` for these twice a photo (its month, its date), get_photos once
/// (`taken_at`), and each answer cost more than the rest of a card. Equal to `Calendar`'s answer for
/// every moment since the Gregorian reform (1582), which the tests check across zones.
struct CivilTime: Equatable, Sendable {
    let year: Int
    let month: Int
    let day: Int
    let hour: Int
    let minute: Int
    let second: Int
    /// Within the second, truncated.
    let millisecond: Int

    init(_ date: Date, in zone: TimeZone? = nil) {
        // From the reference date (2001), which `Date` holds: no rounding from moving it to 1970.
        let sinceReference = date.timeIntervalSinceReferenceDate
        let whole = sinceReference.rounded(.down)
        millisecond = Int((sinceReference - whole) * 1_000_000_000) / 1_000_000
        var seconds = Int(whole) + 978_307_200 + (zone?.secondsFromGMT(for: date) ?? 0)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        seconds -= days * 86_400
        hour = seconds / 3600
        minute = seconds % 3600 / 60
        second = seconds % 60

        // civil_from_days: day 0 is 1970-01-01; eras of 400 years begin on 1 March.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }
}
