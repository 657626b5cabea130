import Foundation
import Mustache

/// Every language's catalogue, read from `Locales/<code>/*.ftl` at start-up (a missing language
/// or a file that does not parse stops it). A key missing in a language falls back to English;
/// `CatalogueTests` keeps that from happening in a release.
struct Translations: Sendable {
    private let catalogues: [Language: MessageCatalogue]

    init(directory: String) throws {
        var catalogues: [Language: MessageCatalogue] = [:]
        for language in Language.allCases {
            catalogues[language] = try MessageCatalogue(language: language, directory: "\(directory)/\(language.rawValue)")
        }
        self.catalogues = catalogues
    }

    func catalogue(_ language: Language) -> MessageCatalogue {
        catalogues[language] ?? MessageCatalogue(language: language)
    }

    /// The message in `language`, else in English, else its key (so a missing key shows, not a blank).
    func format(_ key: String, _ arguments: [String: MessageArgument] = [:], in language: Language) -> String {
        catalogue(language).format(key, arguments) ?? catalogue(.english).format(key, arguments) ?? key
    }

    func text(_ text: LocalizedText, in language: Language) -> String {
        switch text.content {
        case .verbatim(let string): string
        case .message(let key, let arguments): format(key, arguments, in: language)
        }
    }

    /// What templates read as `{{t.some-key}}`: the messages of one language.
    func messages(_ language: Language) -> Messages { Messages(translations: self, language: language) }

    struct Messages: Sendable, MustacheParent {
        let translations: Translations
        let language: Language

        func child(named name: String) -> Any? { translations.format(name, in: language) }
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
