import Foundation
import NIOCore

/// Every language's catalogue, read from `Locales/<code>/*.ftl` at start-up (a missing language
/// or a file that does not parse stops it). A key missing in a language falls back to English;
/// `CatalogueTests` keeps that from happening in a release.
struct Translations: Sendable {
    private let catalogues: [Language: MessageCatalogue]
    /// Per language, the `js-…` messages as JSON for the page scripts, escaped once for the
    /// attribute that carries them (`<html data-words>`): every page has them, ~2.5 KB.
    private let scriptWordsAttribute: [Language: String]

    init(directory: String) throws {
        var catalogues: [Language: MessageCatalogue] = [:]
        for language in Language.allCases {
            catalogues[language] = try MessageCatalogue(language: language, directory: "\(directory)/\(language.rawValue)")
        }
        self.catalogues = catalogues
        var scriptWordsAttribute: [Language: String] = [:]
        for language in Language.allCases {
            scriptWordsAttribute[language] = ScalarHTMLEscaping().escapeText(Self.scriptWords(catalogues[language]!, english: catalogues[.english]!))
        }
        self.scriptWordsAttribute = scriptWordsAttribute
    }

    /// `{"js-uploading": "Uploading {percent} %", "js-selected#one": "1 photo selected", …}`: each
    /// placeholder left for the script to fill; a message with plural variants once per category.
    private static func scriptWords(_ catalogue: MessageCatalogue, english: MessageCatalogue) -> String {
        var entries: [String: String] = [:]
        for key in english.keys where key.hasPrefix("js-") {
            let source = catalogue.has(key) ? catalogue : english
            let variables = source.variables(of: key)
            for category in ["one", "other"] {
                let arguments = Dictionary(uniqueKeysWithValues: variables.map { ($0, MessageArgument.placeholder($0, category: category)) })
                let text = source.format(key, arguments) ?? key
                entries[category == "one" ? key + "#one" : key] = text
            }
        }
        // Keys in order, so that every instance serves the same page; written by `JSONBytes` rather
        // than `JSONSerialization`, whose sorted keys load ICU's collator and its data at start-up
        // (BENCHMARKS.md, "what the idle RSS is made of").
        var json = JSONBytes(capacity: 8 * 1024)
        json.raw("{")
        for (index, entry) in entries.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { json.raw(",") }
            json.string(entry.key)
            json.raw(":")
            json.string(entry.value)
        }
        json.raw("}")
        return String(buffer: json.buffer)
    }

    /// The script words of `language`, escaped for an attribute's value.
    func scriptWordsAttribute(_ language: Language) -> String { scriptWordsAttribute[language] ?? "{}" }

    func catalogue(_ language: Language) -> MessageCatalogue {
        catalogues[language] ?? MessageCatalogue(language: language)
    }

    /// The message in `language`, else in English, else its key (so a missing key shows, not a blank).
    func format(_ key: String, _ arguments: [String: MessageArgument] = [:], in language: Language) -> String {
        catalogue(language).format(key, arguments) ?? catalogue(.english).format(key, arguments) ?? key
    }

    /// The placeholders of a message (the same in every language: `CatalogueTests`).
    func placeholders(of key: String) -> Set<String> { catalogue(.english).variables(of: key) }

    func text(_ text: LocalizedText, in language: Language) -> String {
        switch text.content {
        case .verbatim(let string): string
        case .message(let key, let arguments): format(key, arguments, in: language)
        }
    }
}

/// Words for the page: a catalogue message (a string literal is its key, as in
/// `title: "gallery-title"`), or text shown as it is (a user's album title).
struct LocalizedText: Sendable, ExpressibleByStringLiteral {
    enum Content: Sendable {
        case verbatim(String)
        case message(key: String, arguments: [String: MessageArgument])
    }

    let content: Content

    init(stringLiteral key: String) { content = .message(key: key, arguments: [:]) }

    static func message(_ key: String, _ arguments: [String: MessageArgument] = [:]) -> LocalizedText {
        LocalizedText(content: .message(key: key, arguments: arguments))
    }

    static func verbatim(_ text: String) -> LocalizedText { LocalizedText(content: .verbatim(text)) }

    private init(content: Content) { self.content = content }
}

/// The words and formats of one viewer, for view models built in Swift: a sentence with its
/// values, a time in the viewer's zone and language.
struct Words: Sendable {
    let translations: Translations
    let viewer: Viewer

    var language: Language { viewer.language }

    func callAsFunction(_ key: String, _ arguments: [String: MessageArgument] = [:]) -> String {
        translations.format(key, arguments, in: viewer.language)
    }

    func time(_ date: Date) -> String { viewer.time(date) }
}

extension PageRenderer {
    /// The words for the page a context is about to render.
    func words(for context: some PageContext) -> Words { Words(translations: translations, viewer: context.viewer) }
}
