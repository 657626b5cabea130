import Foundation

/// One language's messages, read from `Locales/<language>/*.ftl`: a subset of Project Fluent
/// (https://projectfluent.org/fluent/guide/) that covers what Selfie says —
///
///     # a comment
///     gallery-title = Your photos
///     -brand = Selfie                          (a term: used as { -brand }, never shown alone)
///     photo-count = { $count ->
///         [one] One photo
///        *[other] { $count } photos
///     }
///     long-message =
///         A value may continue on the lines below,
///         indented; the lines are joined with a space.
///
/// Variables are `{ $name }`; a selector picks a variant by the number's plural category in the
/// language (`[one]`, `[other]`), by an exact number (`[0]`) or by a string (`[light]`), else the
/// `*` default. Sentences are whole messages with placeholders: nothing is built by concatenation.
struct MessageCatalogue: Sendable {
    let language: Language
    private(set) var messages: [String: Pattern]
    private var terms: [String: Pattern]

    init(language: Language, messages: [String: Pattern] = [:], terms: [String: Pattern] = [:]) {
        self.language = language
        self.messages = messages
        self.terms = terms
    }

    /// Reads every `.ftl` file of `directory`; a syntax error names the file and line.
    init(language: Language, directory: String) throws {
        self.init(language: language)
        for file in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() where file.hasSuffix(".ftl") {
            let source = try String(contentsOfFile: "\(directory)/\(file)", encoding: .utf8)
            try add(source: source, file: file)
        }
    }

    /// Adds the messages of one file's text; a key defined twice is an error.
    mutating func add(source: String, file: String) throws {
        for entry in try FluentParser(source: source, file: file).entries() {
            if entry.isTerm {
                guard terms[entry.id] == nil else { throw CatalogueError(file: file, line: entry.line, problem: "-\(entry.id) is defined twice") }
                terms[entry.id] = entry.pattern
            } else {
                guard messages[entry.id] == nil else { throw CatalogueError(file: file, line: entry.line, problem: "\(entry.id) is defined twice") }
                messages[entry.id] = entry.pattern
            }
        }
    }

    var keys: Set<String> { Set(messages.keys) }

    func has(_ key: String) -> Bool { messages[key] != nil }

    /// The message in this language with its placeholders filled; nil when the key is missing.
    func format(_ key: String, _ arguments: [String: MessageArgument] = [:]) -> String? {
        guard let pattern = messages[key] else { return nil }
        var out = ""
        write(pattern, arguments: arguments, into: &out, depth: 0)
        return out
    }

    /// The variables a message uses, selectors included (the catalogue tests compare languages).
    func variables(of key: String) -> Set<String> {
        guard let pattern = messages[key] else { return [] }
        return Self.variables(in: pattern, terms: terms)
    }

    private static func variables(in pattern: Pattern, terms: [String: Pattern]) -> Set<String> {
        var names = Set<String>()
        for element in pattern {
            switch element {
            case .text, .term: break
            case .variable(let name): names.insert(name)
            case .select(let name, let variants, _):
                names.insert(name)
                for variant in variants { names.formUnion(variables(in: variant.pattern, terms: terms)) }
            }
        }
        return names
    }

    private func write(_ pattern: Pattern, arguments: [String: MessageArgument], into out: inout String, depth: Int) {
        for element in pattern {
            switch element {
            case .text(let text):
                out += text
            case .variable(let name):
                out += arguments[name].map { $0.text(in: language) } ?? "{$\(name)}"
            case .term(let name):
                // Terms may use terms; a cycle stops at a depth no real catalogue reaches.
                if let term = terms[name], depth < 8 { write(term, arguments: arguments, into: &out, depth: depth + 1) }
            case .select(let name, let variants, let defaultIndex):
                let chosen = Self.variant(for: arguments[name], among: variants, language: language) ?? variants[defaultIndex]
                write(chosen.pattern, arguments: arguments, into: &out, depth: depth)
            }
        }
    }

    private static func variant(for argument: MessageArgument?, among variants: [Variant], language: Language) -> Variant? {
        switch argument {
        case .number(let number)?:
            return variants.first { $0.key == String(number) } ?? variants.first { $0.key == language.pluralCategory(of: number) }
        case .placeholder(_, let category)?:
            return variants.first { $0.key == category }
        case .text(let text)?:
            return variants.first { $0.key == text }
        case nil:
            return nil
        }
    }

    typealias Pattern = [Element]

    enum Element: Sendable, Equatable {
        case text(String)
        case variable(String)
        case term(String)
        case select(variable: String, variants: [Variant], defaultIndex: Int)
    }

    struct Variant: Sendable, Equatable {
        let key: String
        let pattern: Pattern
    }
}

/// A value for a message's placeholder: numbers choose plural variants and are written with the
/// language's digit grouping.
enum MessageArgument: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case text(String)
    case number(Int)
    /// `{name}` written as it is, choosing the variant of `category` ("one", "other"): how the
    /// page scripts get a message to fill in themselves.
    case placeholder(String, category: String)

    init(stringLiteral value: String) { self = .text(value) }
    init(integerLiteral value: Int) { self = .number(value) }

    func text(in language: Language) -> String {
        switch self {
        case .text(let text): text
        case .number(let number): language.formatNumber(number)
        case .placeholder(let name, _): "{\(name)}"
        }
    }
}

struct CatalogueError: Error, CustomStringConvertible {
    let file: String
    let line: Int
    let problem: String
    var description: String { "\(file):\(line): \(problem)" }
}

/// Reads the Fluent subset line by line; placeables are parsed character by character.
private struct FluentParser {
    struct Entry {
        let id: String
        let isTerm: Bool
        let pattern: MessageCatalogue.Pattern
        let line: Int
    }

    let lines: [Substring]
    let file: String

    init(source: String, file: String) {
        self.lines = source.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        self.file = file
    }

    func entries() throws -> [Entry] {
        var entries: [Entry] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line.allSatisfy(\.isWhitespace) || line.hasPrefix("#") {
                index += 1
                continue
            }
            guard let first = line.first, !first.isWhitespace, let equals = line.firstIndex(of: "=") else {
                throw CatalogueError(file: file, line: index + 1, problem: "expected `key = value`")
            }
            var id = line[..<equals].trimmingCharacters(in: .whitespaces)
            let isTerm = id.hasPrefix("-")
            if isTerm { id.removeFirst() }
            guard Self.isIdentifier(id) else { throw CatalogueError(file: file, line: index + 1, problem: "`\(id)` is not a message id") }
            // The value: the rest of this line and every following indented line.
            var valueLines = [line[line.index(after: equals)...]]
            let start = index
            index += 1
            // (A selector's closing brace may stand at the start of its line.)
            while index < lines.count, let next = lines[index].first, next == " " || next == "}" {
                valueLines.append(lines[index])
                index += 1
            }
            let text = Self.joined(valueLines)
            var reader = PlaceableReader(text: text, file: file, line: start + 1)
            let pattern = try reader.pattern(until: nil)
            guard !pattern.isEmpty else { throw CatalogueError(file: file, line: start + 1, problem: "\(id) has no value") }
            entries.append(Entry(id: id, isTerm: isTerm, pattern: pattern, line: start + 1))
        }
        return entries
    }

    /// Continuation lines are joined with a space; lines inside a selector keep their breaks so
    /// variants stay one per line.
    private static func joined(_ lines: [Substring]) -> String {
        var text = ""
        var depth = 0
        for (number, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if number > 0, !trimmed.isEmpty { text += depth > 0 ? "\n" : (text.isEmpty ? "" : " ") }
            text += trimmed
            depth += trimmed.filter { $0 == "{" }.count - trimmed.filter { $0 == "}" }.count
        }
        return text
    }

    static func isIdentifier(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, ("a"..."z").contains(first) || ("A"..."Z").contains(first) else { return false }
        return id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
    }
}

private struct PlaceableReader {
    let characters: [Character]
    var position = 0
    let file: String
    let line: Int

    init(text: String, file: String, line: Int) {
        self.characters = Array(text)
        self.file = file
        self.line = line
    }

    private func fail(_ problem: String) -> CatalogueError { CatalogueError(file: file, line: line, problem: problem) }

    /// Text and placeables up to `terminator` (a variant ends at a newline before the next `[`/`*[`
    /// or at the selector's `}`), or to the end.
    mutating func pattern(until terminator: Character?) throws -> MessageCatalogue.Pattern {
        var elements: MessageCatalogue.Pattern = []
        var text = ""
        func flush() {
            if !text.isEmpty { elements.append(.text(text)) }
            text = ""
        }
        while position < characters.count {
            let character = characters[position]
            if terminator != nil, character == "\n" || character == "}" {
                break
            }
            if character == "{" {
                flush()
                position += 1
                elements.append(try placeable())
                continue
            }
            if character == "}" { throw fail("a `}` without its `{`") }
            text.append(character)
            position += 1
        }
        flush()
        return elements
    }

    private mutating func skipSpaces(newlines: Bool = false) {
        while position < characters.count, characters[position] == " " || (newlines && characters[position] == "\n") { position += 1 }
    }

    private mutating func name() -> String {
        var name = ""
        while position < characters.count, characters[position].isLetter || characters[position].isNumber || characters[position] == "-" || characters[position] == "_" {
            name.append(characters[position])
            position += 1
        }
        return name
    }

    private mutating func expect(_ character: Character) throws {
        skipSpaces(newlines: true)
        guard position < characters.count, characters[position] == character else { throw fail("expected `\(character)`") }
        position += 1
    }

    private mutating func placeable() throws -> MessageCatalogue.Element {
        skipSpaces()
        guard position < characters.count else { throw fail("an unfinished `{`") }
        if characters[position] == "\"" {
            // A string literal: `{ "{" }` writes a brace.
            position += 1
            var literal = ""
            while position < characters.count, characters[position] != "\"" {
                literal.append(characters[position])
                position += 1
            }
            position += 1
            try expect("}")
            return .text(literal)
        }
        if characters[position] == "-" {
            position += 1
            let term = name()
            guard !term.isEmpty else { throw fail("a term reference without a name") }
            try expect("}")
            return .term(term)
        }
        guard characters[position] == "$" else { throw fail("a placeable must be `$variable`, `-term` or a \"string\"") }
        position += 1
        let variable = name()
        guard !variable.isEmpty else { throw fail("a `$` without a name") }
        skipSpaces()
        if position + 1 < characters.count, characters[position] == "-", characters[position + 1] == ">" {
            position += 2
            return try select(on: variable)
        }
        try expect("}")
        return .variable(variable)
    }

    private mutating func select(on variable: String) throws -> MessageCatalogue.Element {
        var variants: [MessageCatalogue.Variant] = []
        var defaultIndex: Int?
        while true {
            skipSpaces(newlines: true)
            guard position < characters.count else { throw fail("an unfinished selector on $\(variable)") }
            if characters[position] == "}" {
                position += 1
                break
            }
            var isDefault = false
            if characters[position] == "*" {
                isDefault = true
                position += 1
            }
            try expect("[")
            skipSpaces()
            var key = ""
            while position < characters.count, characters[position] != "]" {
                key.append(characters[position])
                position += 1
            }
            try expect("]")
            skipSpaces()
            let pattern = try self.pattern(until: "\n")
            if isDefault {
                guard defaultIndex == nil else { throw fail("two default variants for $\(variable)") }
                defaultIndex = variants.count
            }
            variants.append(.init(key: key.trimmingCharacters(in: .whitespaces), pattern: pattern))
        }
        guard let defaultIndex else { throw fail("the selector on $\(variable) has no `*[…]` default") }
        return .select(variable: variable, variants: variants, defaultIndex: defaultIndex)
    }
}
