import Foundation
import Testing

@testable import App

/// The catalogues (`Locales/<lang>/*.ftl`) and the templates that use them: the reader reads what
/// Selfie writes, every language has every message with the same placeholders, and no template
/// says anything in English outside the catalogue.
@Suite struct CatalogueTests {
    static let translations = try! Translations(directory: "\(repositoryRoot)/Locales")

    // MARK: The reader

    @Test("messages, placeholders, terms and plural variants are read and filled in")
    func readsTheFluentSubset() throws {
        var catalogue = MessageCatalogue(language: .german)
        try catalogue.add(
            source: """
                # a comment
                -brand = Selfie
                welcome = Willkommen bei { -brand }, { $name }!
                photos = { $count ->
                    [0] Keine Fotos
                    [one] Ein Foto
                   *[other] { $count } Fotos
                }
                long =
                    Erste Zeile,
                    zweite Zeile.
                braces = Ein { "{" } bleibt.
                """,
            file: "test.ftl"
        )
        #expect(catalogue.format("welcome", ["name": "Ada"]) == "Willkommen bei Selfie, Ada!")
        #expect(catalogue.format("photos", ["count": 0]) == "Keine Fotos")
        #expect(catalogue.format("photos", ["count": 1]) == "Ein Foto")
        #expect(catalogue.format("photos", ["count": 12345]) == "12.345 Fotos")
        #expect(catalogue.format("long") == "Erste Zeile, zweite Zeile.")
        #expect(catalogue.format("braces") == "Ein { bleibt.")
        #expect(catalogue.format("missing") == nil)
        #expect(catalogue.variables(of: "photos") == ["count"])
    }

    @Test("templates get their words at start-up: escaped, placeholders as value tags; a message used without its placeholders or with others stops the start-up")
    func translatedTemplates() throws {
        let translate = { (source: String) in
            try TranslatedTemplates.translate(source, named: "t", into: .german, with: Self.translations)
        }
        #expect(try translate("<h2>{{#t.gallery-hello}}name=firstName{{/t.gallery-hello}}</h2><p>{{t.gallery-empty}}</p>{{page.x}}")
            == "<h2>Hallo, {{firstName}}</h2><p>Deine Galerie ist leer. Lade dein erstes Selfie hoch: Nur du kannst es sehen.</p>{{page.x}}")
        for refused in [
            "{{t.gallery-hello}}",  // placeholders left unfilled
            "{{#t.gallery-hello}}{{/t.gallery-hello}}",
            "{{#t.gallery-hello}}name=firstName other=x{{/t.gallery-hello}}",
            "{{#t.gallery-hello}}name={{{raw}}}{{/t.gallery-hello}}",
            "{{{t.gallery-empty}}}",
            "{{^t.gallery-empty}}x{{/t.gallery-empty}}",
            "{{#t.gallery-hello}}name=firstName",
        ] {
            #expect(throws: TranslatedTemplates.UnsupportedTag.self, "\(refused)") { try translate(refused) }
        }
    }

    @Test("a broken catalogue names its file and line", arguments: [
        ("ok = fine\nbroken line without equals", 2),
        ("a = { $count ->\n    [one] x\n}", 1),  // no default variant
        ("a = one\na = two", 2),  // twice
        ("a = { $ }", 1),
        ("a = text }", 1),
    ])
    func brokenCatalogue(source: String, line: Int) {
        var catalogue = MessageCatalogue(language: .english)
        #expect {
            try catalogue.add(source: source, file: "bad.ftl")
        } throws: { error in
            (error as? CatalogueError).map { $0.file == "bad.ftl" && $0.line == line } ?? false
        }
    }

    // MARK: The languages

    @Test("German and Spanish have every English message, no other, with the same placeholders")
    func everyLanguageComplete() {
        let english = Self.translations.catalogue(.english)
        #expect(english.keys.count > 100)
        for language in Language.allCases where language != .english {
            let other = Self.translations.catalogue(language)
            #expect(english.keys.subtracting(other.keys).sorted() == [], "missing in \(language.rawValue)")
            #expect(other.keys.subtracting(english.keys).sorted() == [], "only in \(language.rawValue)")
            for key in english.keys.intersection(other.keys).sorted() {
                #expect(english.variables(of: key) == other.variables(of: key), "\(language.rawValue): \(key)'s placeholders")
            }
        }
    }

    @Test("every status a page answers with has its heading (the error page's title) in the catalogue, not the English reason phrase")
    func everyStatusHasAHeading() {
        let english = Self.translations.catalogue(.english)
        // What ErrorCopy, the controllers and Hummingbird answer browsers with.
        for code in [400, 401, 403, 404, 405, 408, 409, 410, 413, 415, 416, 422, 429, 500, 503, 507] {
            #expect(english.format("status-\(code)") != nil, "status-\(code)")
        }
    }

    @Test("numbers, dates and times are written the language's way, in the viewer's zone")
    func formats() throws {
        #expect(Language.english.formatNumber(1_234_567) == "1,234,567")
        #expect(Language.german.formatNumber(1_234_567) == "1.234.567")
        #expect(Language.spanish.formatNumber(1234) == "1234")
        #expect(Language.spanish.formatNumber(12345) == "12.345")
        #expect(Language.german.formatDecimal(2.5) == "2,5")
        let moment = Date(timeIntervalSince1970: 1_795_511_940)  // 2026-11-24 09:19 UTC
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        #expect(Viewer(language: .english, timeZone: berlin, theme: .system).time(moment) == "24 Nov 2026, 10:19")
        #expect(Viewer(language: .german, timeZone: berlin, theme: .system).time(moment) == "24. Nov. 2026, 10:19")
        #expect(Viewer(language: .spanish, timeZone: berlin, theme: .system).time(moment) == "24 nov 2026, 10:19")
        #expect(Viewer(language: .english, timeZone: nil, theme: .system).time(moment) == "24 Nov 2026, 09:19 UTC")
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        #expect(Viewer(language: .german, timeZone: tokyo, theme: .system).day(moment) == "24. Nov. 2026")
    }

    @Test("Accept-Language picks the best language Selfie has", arguments: [
        ("de-CH, de;q=0.9, en;q=0.8", Language.german),
        ("fr-FR, es;q=0.5, en;q=0.4", .spanish),
        ("en-US,en;q=0.9", .english),
        ("es;q=0.2, de;q=0.7", .german),
        ("de;q=0, es", .spanish),
    ])
    func acceptLanguage(header: String, expected: Language) {
        #expect(Language.preferred(byAcceptLanguage: header) == expected)
    }

    @Test("Accept-Language naming none of ours gives no language (English is the caller's fallback)")
    func acceptLanguageNone() {
        #expect(Language.preferred(byAcceptLanguage: "fr, it;q=0.8") == nil)
        #expect(Language.preferred(byAcceptLanguage: "") == nil)
    }

    // MARK: The templates

    @Test("no template says a word outside the catalogue")
    func templatesHoldNoText() throws {
        var found: [String] = []
        for (name, text) in try Self.pageTemplates() {
            for phrase in TemplateText.userFacingText(in: text) {
                found.append("\(name).mustache: “\(phrase)”")
            }
        }
        #expect(found == [], "text outside Locales/: \(found.joined(separator: "; "))")
    }

    @Test("the check finds a hard-coded sentence, in text and in attributes")
    func checkFindsEnglish() {
        let template = """
            <h1>{{t.title-gallery}}</h1><p>Your photos are safe.</p>
            <img alt="A photo" src="{{url}}"><input placeholder="{{t.field-email}}">
            <button aria-label="Close">×</button> <a href="/">Selfie</a> {{! a comment with words }}
            """
        #expect(TemplateText.userFacingText(in: template) == ["A photo", "Close", "Your photos are safe."])
    }

    @Test("every {{t.key}} a template uses is in the English catalogue")
    func templateKeysExist() throws {
        let english = Self.translations.catalogue(.english)
        var missing: [String] = []
        for (name, text) in try Self.pageTemplates() {
            for key in TemplateText.catalogueKeys(in: text) where !english.has(key) {
                missing.append("\(name): \(key)")
            }
        }
        #expect(missing == [])
    }

    static func pageTemplates() throws -> [(String, String)] {
        let directory = "\(repositoryRoot)/Templates"
        return try FileManager.default.contentsOfDirectory(atPath: directory).sorted().filter { $0.hasSuffix(".mustache") }.map {
            (String($0.dropLast(".mustache".count)), try String(contentsOfFile: "\(directory)/\($0)", encoding: .utf8))
        }
    }
}

/// What a template shows people, with the Mustache tags taken out: text between elements and the
/// attributes read aloud or shown (alt, title, placeholder, aria-label, content of a submit value).
enum TemplateText {
    /// Words allowed outside the catalogue: the product's name.
    static let allowed: Set<String> = ["Selfie"]

    static func userFacingText(in template: String) -> [String] {
        var text = template.replacingOccurrences(of: #"\{\{![\s\S]*?\}\}"#, with: " ", options: .regularExpression)
        text = text.replacingOccurrences(of: #"<script[\s\S]*?</script>"#, with: " ", options: .regularExpression)
        text = text.replacingOccurrences(of: #"<style[\s\S]*?</style>"#, with: " ", options: .regularExpression)
        // A message with placeholders names its values inside its section: not text.
        text = text.replacingOccurrences(of: #"\{\{#t\.([A-Za-z0-9_-]+)\}\}[^{]*\{\{/t\.\1\}\}"#, with: "\u{1}", options: .regularExpression)
        text = text.replacingOccurrences(of: #"\{\{[^}]*\}\}"#, with: "\u{1}", options: .regularExpression)
        var phrases: [String] = []
        // Attributes people read or hear.
        let attribute = try! NSRegularExpression(pattern: #"\b(alt|title|placeholder|aria-label|aria-description)="([^"]*)""#)
        let range = NSRange(text.startIndex..., in: text)
        for match in attribute.matches(in: text, range: range) {
            if let value = Range(match.range(at: 2), in: text) { phrases.append(String(text[value])) }
        }
        // Text between tags.
        let withoutTags = text.replacingOccurrences(of: #"<[^>]*>"#, with: "\u{0}", options: .regularExpression)
        phrases += withoutTags.split(separator: "\u{0}").map(String.init)
        return phrases.compactMap { phrase in
            let cleaned = phrase.replacingOccurrences(of: "\u{1}", with: " ")
                .replacingOccurrences(of: #"&[a-z#0-9]+;"#, with: " ", options: .regularExpression)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let words = allowed.reduce(cleaned) { $0.replacingOccurrences(of: $1, with: " ") }
            guard words.unicodeScalars.contains(where: { CharacterSet.letters.contains($0) }) else { return nil }
            return cleaned
        }
    }

    static func catalogueKeys(in template: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: #"\{\{[#^/]?\s*t\.([A-Za-z0-9_-]+)\s*\}\}"#)
        let range = NSRange(template.startIndex..., in: template)
        return Set(pattern.matches(in: template, range: range).compactMap { Range($0.range(at: 1), in: template).map { String(template[$0]) } })
    }
}
