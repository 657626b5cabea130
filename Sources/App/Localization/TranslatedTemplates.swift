import Foundation

/// The page templates with their words written in, one copy per language, made at start-up.
///
/// A template names its words by key: `{{t.key}}` for a message without placeholders, and
/// `{{#t.key}}placeholder=value …{{/t.key}}` for one with placeholders, each filled by a template
/// value (`{{#t.photo-taken}}date=takenDate{{/t.photo-taken}}` becomes "Taken {{takenDate}}").
/// Both are replaced here by the message's text, escaped for HTML, with `{` escaped too so that no
/// translation can open a tag; each placeholder becomes the value's own tag, escaped when rendered
/// like any value. Rendering a page then looks no word up: translating while rendering (a lambda
/// per sentence, parsed as a template on every page) took a third of the gallery's CPU.
enum TranslatedTemplates {
    struct UnsupportedTag: Error, CustomStringConvertible {
        let template: String
        let tag: String
        var description: String {
            "template \(template): \(tag) — messages are written {{t.key}}, or {{#t.key}}placeholder=value …{{/t.key}} naming every placeholder"
        }
    }

    /// `source` with every `t.` tag replaced by the message in `language` (else English, else the key).
    static func translate(_ source: String, named name: String, into language: Language, with translations: Translations) throws -> String {
        var out = ""
        out.reserveCapacity(source.utf8.count)
        var rest = source[...]
        while let open = rest.range(of: "{{") {
            out += rest[..<open.lowerBound]
            let tag = rest[open.lowerBound...]
            if tag.hasPrefix("{{t."), let close = tag.range(of: "}}") {
                let key = String(tag[tag.index(open.lowerBound, offsetBy: 4)..<close.lowerBound])
                // A message with placeholders is a section that names their values.
                guard isKey(key), !tag[close.upperBound...].hasPrefix("}"), translations.placeholders(of: key).isEmpty else {
                    throw UnsupportedTag(template: name, tag: String(tag.prefix(40)))
                }
                out += escaped(translations.format(key, in: language))
                rest = tag[close.upperBound...]
            } else if tag.hasPrefix("{{#t."), let close = tag.range(of: "}}") {
                let key = String(tag[tag.index(open.lowerBound, offsetBy: 5)..<close.lowerBound])
                guard isKey(key), let end = tag[close.upperBound...].range(of: "{{/t.\(key)}}") else {
                    throw UnsupportedTag(template: name, tag: String(tag.prefix(40)))
                }
                let bindings = tag[close.upperBound..<end.lowerBound]
                out += try withValueTags(key, bindings: bindings, template: name, language: language, translations: translations)
                rest = tag[end.upperBound...]
            } else if tag.hasPrefix("{{{t.") || tag.hasPrefix("{{^t.") || tag.hasPrefix("{{&t.") || tag.hasPrefix("{{#t}}") {
                throw UnsupportedTag(template: name, tag: String(tag.prefix(40)))
            } else {
                out += "{{"
                rest = tag.dropFirst(2)
            }
        }
        out += rest
        return out
    }

    /// "date=takenDate count=photoCount": the message with `{{takenDate}}` and `{{photoCount}}`
    /// where its placeholders are.
    private static func withValueTags(
        _ key: String, bindings: Substring, template: String, language: Language, translations: Translations
    ) throws -> String {
        // Each placeholder goes in as a marker, so the message's own text is escaped apart from it.
        let (open, close): (Character, Character) = ("\u{1}", "\u{2}")
        var arguments: [String: MessageArgument] = [:]
        for pair in bindings.split(whereSeparator: \.isWhitespace) {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[1].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" }) else {
                throw UnsupportedTag(template: template, tag: "{{#t.\(key)}}\(bindings)")
            }
            arguments[String(parts[0])] = .text("\(open)\(parts[1])\(close)")
        }
        guard Set(arguments.keys) == translations.placeholders(of: key) else {
            throw UnsupportedTag(template: template, tag: "{{#t.\(key)}}\(bindings) — the message's placeholders are \(translations.placeholders(of: key).sorted())")
        }
        return escaped(translations.format(key, arguments, in: language))
            .replacingOccurrences(of: String(open), with: "{{")
            .replacingOccurrences(of: String(close), with: "}}")
    }

    private static func escaped(_ text: String) -> String {
        ScalarHTMLEscaping().escapeText(text).replacingOccurrences(of: "{", with: "&#123;")
    }

    private static func isKey(_ key: String) -> Bool {
        !key.isEmpty && key.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }
}
