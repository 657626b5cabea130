import Foundation

/// The languages Selfie speaks. English is the source; every key of `Locales/en` must exist in
/// the others (`CatalogueTests`).
enum Language: String, CaseIterable, Sendable {
    case english = "en"
    case german = "de"
    case spanish = "es"

    /// Its own name, as the picker shows it (not translated: a visitor looks for their language).
    var nativeName: String {
        switch self {
        case .english: "English"
        case .german: "Deutsch"
        case .spanish: "Español"
        }
    }

    /// CLDR's cardinal plural category for a whole number. English, German and Spanish put 1 in
    /// "one" and everything else in "other" (Spanish's "many" concerns millions in compact forms
    /// only, which Selfie never writes).
    func pluralCategory(of number: Int) -> String {
        number == 1 ? "one" : "other"
    }

    /// A whole number with the language's grouping: 12,345 · 12.345 · 12.345 (Spanish groups from
    /// five digits on: 1234, 12.345).
    func formatNumber(_ number: Int) -> String {
        let digits = String(number.magnitude)
        let separator: Character
        switch self {
        case .english: separator = ","
        case .german: separator = "."
        case .spanish:
            if digits.count <= 4 { return number < 0 ? "-" + digits : digits }
            separator = "."
        }
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(separator) }
            grouped.append(digit)
        }
        return number < 0 ? "-" + grouped : grouped
    }

    /// A decimal with one digit after the separator: 2.5 · 2,5.
    func formatDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        let whole = formatNumber(tenths / 10)
        return whole + (self == .english ? "." : ",") + String(abs(tenths % 10))
    }

    /// The best of ours for an `Accept-Language` header ("de-CH, de;q=0.9, en;q=0.8"), by quality,
    /// then order; nil when it names none of them.
    static func preferred(byAcceptLanguage header: String) -> Language? {
        var choices: [(language: Language, quality: Double, order: Int)] = []
        for (order, part) in header.split(separator: ",").enumerated() {
            let fields = part.split(separator: ";")
            guard let tag = fields.first?.trimmingCharacters(in: .whitespaces).lowercased() else { continue }
            var quality = 1.0
            for field in fields.dropFirst() {
                let pair = field.trimmingCharacters(in: .whitespaces)
                if pair.hasPrefix("q="), let value = Double(pair.dropFirst(2)) { quality = value }
            }
            let primary = tag.split(separator: "-").first.map(String.init) ?? tag
            if quality > 0, let language = Language(rawValue: primary) {
                choices.append((language, quality, order))
            }
        }
        return choices.min { ($0.quality, -$0.order) > ($1.quality, -$1.order) }?.language
    }
}

/// Who is looking at a page: the language it is written in, the zone its times are shown in and
/// the theme it is drawn in. Taken from the account when signed in, else from the browser's
/// cookies and `Accept-Language` (`ViewerMiddleware`).
struct Viewer: Sendable {
    var language: Language
    /// nil until the browser told us (the first page load does): times are then shown in UTC, labelled.
    var timeZone: TimeZone?
    var theme: Theme

    static let `default` = Viewer(language: .english, timeZone: nil, theme: .system)

    /// "24 Nov 2026, 10:19" · "24. Nov. 2026, 10:19" · "24 nov 2026, 10:19", in the viewer's zone
    /// ("… 10:19 UTC" while the zone is unknown). Built from the language's month names: Foundation
    /// on Linux has no locale data for its formatters.
    func time(_ date: Date) -> String {
        format(CivilTime(date, in: timeZone), zone: timeZone == nil ? " UTC" : "")
    }

    /// A wall-clock time as it reads, with `zone` after it (" UTC", or "" for none named).
    func format(_ parts: CivilTime, zone: String) -> String {
        let day = parts.day
        let month = language.monthAbbreviations[parts.month - 1]
        let year = parts.year
        let clock = Self.twoDigits(parts.hour) + ":" + Self.twoDigits(parts.minute)
        switch language {
        case .german: return "\(day). \(month) \(year), \(clock)\(zone)"
        case .english, .spanish: return "\(day) \(month) \(year), \(clock)\(zone)"
        }
    }

    /// "24 Nov 2026" · "24. Nov. 2026" · "24 nov 2026": a day without its time.
    func day(_ date: Date) -> String {
        let parts = CivilTime(date, in: timeZone)
        let month = language.monthAbbreviations[parts.month - 1]
        switch language {
        case .german: return "\(parts.day). \(month) \(parts.year)"
        case .english, .spanish: return "\(parts.day) \(month) \(parts.year)"
        }
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}

/// The colours a page is drawn in: the system's (`prefers-color-scheme`), or a fixed one.
enum Theme: String, CaseIterable, Sendable {
    case system, light, dark
}

extension Language {
    /// CLDR's abbreviated month names (format context).
    var monthAbbreviations: [String] {
        switch self {
        case .english: ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        case .german: ["Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez."]
        case .spanish: ["ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic"]
        }
    }

    /// CLDR's full month names, for the gallery's month headings ("November 2026").
    var monthNames: [String] {
        switch self {
        case .english: ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        case .german: ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"]
        case .spanish: ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"]
        }
    }
}
