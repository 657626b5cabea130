import Foundation

/// A Mustache template read once at start-up into nodes that render without being read again.
///
/// The part of Mustache the templates use: `{{name}}` (escaped), `{{{name}}}` and `{{&name}}`
/// (raw), dotted names, `{{.}}`, sections and inverted sections (`{{^last()}}` for a list's last
/// element), comments, partials (`{{> name}}`), and a parent with blocks (`{{<layout}}` …
/// `{{$content}}` … `{{/layout}}`). Lines that hold nothing but one such tag and spaces (a
/// "standalone" tag) leave no blank line behind, as the Mustache specification says. Anything else
/// (set delimiters, pragmas, other transforms, a standalone partial with spaces before it, which the
/// specification would indent line by line) stops start-up with the template's name and line.
enum TemplateNode: Sendable {
    case text(String)
    case value(ValuePath, escaped: Bool)
    case section(ValuePath, [TemplateNode])
    case inverted(ValuePath, [TemplateNode])
    /// A partial: another template of the set, rendered here with the same values.
    case partial(String)
    /// `{{<name}}`: the template `name`, its blocks replaced by these (an outer replacement wins).
    case parent(String, overrides: [String: [TemplateNode]])
    /// `{{$name}}default{{/name}}`: a replacement given by a parent tag further out, else its default.
    case block(String, [TemplateNode])
}

/// What a tag names: the value on top of the stack (`.`), a dotted name looked up the stack, or
/// where a list's element stands (`first()`, `last()`).
enum ValuePath: Sendable, Equatable {
    case current
    case names([String])
    case position(ListPosition)

    enum ListPosition: Sendable {
        case first, last
    }
}

struct TemplateSyntaxError: Error, CustomStringConvertible {
    let template: String
    let line: Int
    let problem: String
    var description: String { "template \(template), line \(line): \(problem)" }
}

enum TemplateSyntax {
    /// Reads `source` (the template `name`, for errors) into nodes.
    static func parse(_ source: String, named name: String) throws -> [TemplateNode] {
        let pieces = try standalonesRemoved(tokenize(source, named: name))
        return try build(pieces, named: name)
    }

    // MARK: - Pieces

    enum TagKind: Equatable {
        case value, raw, section, inverted, close, partial, parent, block, comment

        /// Tags that may stand alone on a line (and then take the line with them).
        var canStandAlone: Bool { self != .value && self != .raw }
    }

    struct Tag {
        let kind: TagKind
        let name: String
        let line: Int
        var indentation = ""
    }

    enum Piece {
        case text(Substring)
        case lineBreak(Substring)
        case tag(Tag)

        var isBlank: Bool {
            guard case .text(let text) = self else { return false }
            return text.utf8.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        }
    }

    static func tokenize(_ source: String, named name: String) throws -> [Piece] {
        let bytes = source.utf8
        var pieces: [Piece] = []
        var index = bytes.startIndex
        var textStart = index
        var line = 1
        func text(upTo end: String.Index) {
            if textStart < end { pieces.append(.text(Substring(bytes[textStart..<end]))) }
        }
        func next(_ i: String.Index) -> UInt8? {
            let after = bytes.index(after: i)
            return after < bytes.endIndex ? bytes[after] : nil
        }
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") || (byte == UInt8(ascii: "\r") && next(index) == UInt8(ascii: "\n")) {
                text(upTo: index)
                let end = bytes.index(index, offsetBy: byte == UInt8(ascii: "\n") ? 1 : 2)
                pieces.append(.lineBreak(Substring(bytes[index..<end])))
                line += 1
                index = end
                textStart = end
                continue
            }
            guard byte == UInt8(ascii: "{"), next(index) == UInt8(ascii: "{") else {
                index = bytes.index(after: index)
                continue
            }
            text(upTo: index)
            let open = bytes.index(index, offsetBy: 2)
            let triple = open < bytes.endIndex && bytes[open] == UInt8(ascii: "{")
            let closing = triple ? "}}}" : "}}"
            guard let close = source[open...].range(of: closing) else {
                throw TemplateSyntaxError(template: name, line: line, problem: "a tag is not closed with \(closing)")
            }
            let inside = source[(triple ? bytes.index(after: open) : open)..<close.lowerBound]
            let tag = try self.tag(inside, triple: triple, line: line, template: name)
            pieces.append(.tag(tag))
            line += inside.utf8.count(where: { $0 == UInt8(ascii: "\n") })
            index = close.upperBound
            textStart = index
        }
        text(upTo: bytes.endIndex)
        return pieces
    }

    private static func tag(_ inside: Substring, triple: Bool, line: Int, template: String) throws -> Tag {
        func fail(_ problem: String) -> TemplateSyntaxError { TemplateSyntaxError(template: template, line: line, problem: problem) }
        if triple { return Tag(kind: .raw, name: try checked(inside, fail), line: line) }
        let kind: TagKind
        switch inside.first {
        case "#": kind = .section
        case "^": kind = .inverted
        case "/": kind = .close
        case ">": kind = .partial
        case "<": kind = .parent
        case "$": kind = .block
        case "&": kind = .raw
        case "!": return Tag(kind: .comment, name: "", line: line)
        case "=", "%": throw fail("set-delimiter and pragma tags are not supported: {{\(inside)}}")
        default: return Tag(kind: .value, name: try checked(inside, fail), line: line)
        }
        return Tag(kind: kind, name: try checked(inside.dropFirst(), fail), line: line)
    }

    private static func checked(_ raw: Substring, _ fail: (String) -> TemplateSyntaxError) throws -> String {
        let name = raw.trimmingCharacters(in: .whitespaces)
        let allowed = name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            case UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "("), UInt8(ascii: ")"): true
            default: false
            }
        }
        guard !name.isEmpty, allowed else { throw fail("\"\(raw)\" is not a name") }
        return name
    }

    /// A line that holds one tag that can stand alone, and nothing but spaces and tabs around it,
    /// loses those and its line break; a standalone partial keeps its indentation (to be refused).
    static func standalonesRemoved(_ pieces: [Piece]) -> [Piece] {
        var result: [Piece] = []
        result.reserveCapacity(pieces.count)
        var lineStart = 0
        while lineStart < pieces.count {
            var lineEnd = lineStart
            while lineEnd < pieces.count, !isLineBreak(pieces[lineEnd]) { lineEnd += 1 }
            // pieces[lineStart..<lineEnd] is the line's content; pieces[lineEnd], if any, its break.
            let content = pieces[lineStart..<lineEnd]
            let tags = content.compactMap { piece -> Tag? in
                if case .tag(let tag) = piece { return tag }
                return nil
            }
            if tags.count == 1, tags[0].kind.canStandAlone, content.allSatisfy({ $0.isBlank || isTag($0) }) {
                var tag = tags[0]
                if tag.kind == .partial, case .text(let spaces)? = content.first, content.count > 1 {
                    tag.indentation = String(spaces)
                }
                result.append(.tag(tag))
            } else {
                result.append(contentsOf: content)
                if lineEnd < pieces.count { result.append(pieces[lineEnd]) }
            }
            lineStart = lineEnd + 1
        }
        return result
    }

    private static func isLineBreak(_ piece: Piece) -> Bool {
        if case .lineBreak = piece { return true }
        return false
    }

    private static func isTag(_ piece: Piece) -> Bool {
        if case .tag = piece { return true }
        return false
    }

    // MARK: - Nodes

    private struct Open {
        let tag: Tag
        var nodes: [TemplateNode] = []
    }

    static func build(_ pieces: [Piece], named name: String) throws -> [TemplateNode] {
        var stack = [Open(tag: Tag(kind: .section, name: "", line: 0))]
        var pendingText = ""
        func flushText() {
            if !pendingText.isEmpty {
                stack[stack.count - 1].nodes.append(.text(pendingText))
                pendingText = ""
            }
        }
        for piece in pieces {
            switch piece {
            case .text(let text), .lineBreak(let text):
                pendingText += text
            case .tag(let tag):
                func fail(_ problem: String) -> TemplateSyntaxError { TemplateSyntaxError(template: name, line: tag.line, problem: problem) }
                flushText()
                switch tag.kind {
                case .comment:
                    break
                case .value, .raw:
                    stack[stack.count - 1].nodes.append(.value(try path(tag.name, fail), escaped: tag.kind == .value))
                case .partial:
                    guard tag.indentation.isEmpty else { throw fail("{{> \(tag.name)}} alone on its line must start the line: indented partials are not supported") }
                    stack[stack.count - 1].nodes.append(.partial(tag.name))
                case .section, .inverted, .parent, .block:
                    stack.append(Open(tag: tag))
                case .close:
                    guard stack.count > 1, let open = stack.popLast(), open.tag.name == tag.name else {
                        throw fail("{{/\(tag.name)}} closes nothing open by that name")
                    }
                    let node: TemplateNode
                    switch open.tag.kind {
                    case .section: node = .section(try path(open.tag.name, fail), open.nodes)
                    case .inverted: node = .inverted(try path(open.tag.name, fail), open.nodes)
                    case .block: node = .block(open.tag.name, open.nodes)
                    default: node = .parent(open.tag.name, overrides: try overrides(in: open.nodes, fail))
                    }
                    stack[stack.count - 1].nodes.append(node)
                }
            }
        }
        flushText()
        guard stack.count == 1 else {
            throw TemplateSyntaxError(template: name, line: stack[stack.count - 1].tag.line, problem: "{{\(stack[stack.count - 1].tag.name)}} is never closed")
        }
        return stack[0].nodes
    }

    /// Inside `{{<parent}}`: only blocks (the replacements); text between them is ignored.
    private static func overrides(in nodes: [TemplateNode], _ fail: (String) -> TemplateSyntaxError) throws -> [String: [TemplateNode]] {
        var overrides: [String: [TemplateNode]] = [:]
        for node in nodes {
            switch node {
            case .block(let name, let body): overrides[name] = body
            case .text: continue
            default: throw fail("a parent tag holds only {{$block}} replacements")
            }
        }
        return overrides
    }

    private static func path(_ name: String, _ fail: (String) -> TemplateSyntaxError) throws -> ValuePath {
        switch name {
        case ".": return .current
        case "first()": return .position(.first)
        case "last()": return .position(.last)
        default:
            let names = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !name.contains("("), !names.contains(where: \.isEmpty) else { throw fail("\"\(name)\" is not a name this renderer knows") }
            return .names(names)
        }
    }
}
