/// What a name finds in a template's values, sorted by kind where the value is given: the types
/// pages render say what each of their values is, so that rendering a grid of cards casts nothing
/// from `Any` (casts and their conformance lookups, BENCHMARKS.md).
///
/// A `Bool` is tried before an `Int` when a value is sorted by casts: a Foundation number of 0 or
/// 1 is a flag, as it was in a section before (it printed as a number; no page passes one).
enum TemplateValue {
    case text(String)
    case number(Int)
    case flag(Bool)
    /// A value that answers by name.
    case values(any TemplateValues)
    case list(any TemplateList)
    /// Any other value: its fields are read by reflection (a `Mirror` of the whole value for every
    /// name looked up), which is fine for a page shown now and then. Never an optional, a string,
    /// a flag or a number (a reflected `false` would open a section): a value of a type not known
    /// to be one of those goes through `init(any:)`.
    case reflected(Any)

    /// A value of a type known only at run time (a dictionary's, a reflected field, a page's
    /// content): sorted by casts. nil for an optional without a value, however deeply wrapped.
    init?<Value>(any value: Value) {
        switch value {
        case let text as String: self = .text(text)
        case let flag as Bool: self = .flag(flag)
        case let number as Int: self = .number(number)
        case let convertible as any TemplateValueConvertible:
            guard let value = convertible.templateValue else { return nil }
            self = value
        case let list as any TemplateList: self = .list(list)
        case let optional as any OptionalTemplateValue:
            guard let wrapped = optional.wrapped else { return nil }
            self.init(any: wrapped)
        default: self = .reflected(value)
        }
    }

    /// The value itself.
    var value: Any {
        switch self {
        case .text(let value): value
        case .number(let value): value
        case .flag(let value): value
        case .values(let value): value
        case .list(let list): list.asAny
        case .reflected(let value): value
        }
    }
}

/// A value that says what it is to a template: strings, numbers, flags, lists of such values,
/// optionals of them (nil is no value) and everything that answers by name.
protocol TemplateValueConvertible {
    var templateValue: TemplateValue? { get }
}

/// Values a template looks into by name. The types pages render often answer by name (each
/// value as what it is: `title.templateValue`); any other value is reflected.
protocol TemplateValues: TemplateValueConvertible {
    func value(named name: String) -> TemplateValue?
}

extension TemplateValues {
    var templateValue: TemplateValue? { .values(self) }
}

extension String: TemplateValueConvertible {
    var templateValue: TemplateValue? { .text(self) }
}

extension Int: TemplateValueConvertible {
    var templateValue: TemplateValue? { .number(self) }
}

extension Bool: TemplateValueConvertible {
    var templateValue: TemplateValue? { .flag(self) }
}

extension Optional: TemplateValueConvertible where Wrapped: TemplateValueConvertible {
    var templateValue: TemplateValue? { self?.templateValue ?? nil }
}

extension Array: TemplateValueConvertible where Element: TemplateValueConvertible {
    var templateValue: TemplateValue? { .list(ConvertibleList(elements: self)) }
}

extension Dictionary: TemplateValueConvertible, TemplateValues where Key == String {
    func value(named name: String) -> TemplateValue? { self[name].flatMap { TemplateValue(any: $0) } }
}

/// A list a section repeats its content for, once per element.
protocol TemplateList {
    var isEmpty: Bool { get }
    /// Each element, with where it stands; an element without a value (nil) is skipped, and the
    /// others keep their positions.
    func forEachElement(_ body: (TemplateValue, TemplatePosition) -> Void)
    /// The list itself, as `TemplateValue.value` gives it.
    var asAny: Any { get }
}

/// A list whose elements say what they are (a grid's cards): no element is cast. Casting each
/// card from its generic type took a tenth of the renderer's time (BENCHMARKS.md).
private struct ConvertibleList<Element: TemplateValueConvertible>: TemplateList {
    let elements: [Element]

    var isEmpty: Bool { elements.isEmpty }
    var asAny: Any { elements }

    func forEachElement(_ body: (TemplateValue, TemplatePosition) -> Void) {
        elements.forEachElement(body) { $0.templateValue }
    }
}

/// Any other list (a dictionary's, a reflected field's): each element sorted by casts.
extension Array: TemplateList {
    var asAny: Any { self }

    func forEachElement(_ body: (TemplateValue, TemplatePosition) -> Void) {
        forEachElement(body) { TemplateValue(any: $0) }
    }

    /// Each element as `value` makes it, with where it stands; nil is skipped.
    fileprivate func forEachElement(_ body: (TemplateValue, TemplatePosition) -> Void, value: (Element) -> TemplateValue?) {
        let last = count - 1
        for (index, element) in enumerated() {
            guard let value = value(element) else { continue }
            body(value, TemplatePosition(first: index == 0, last: index == last))
        }
    }
}

/// An optional inside an `Any` (a reflected field, a dictionary's value): nil is no value.
private protocol OptionalTemplateValue {
    var wrapped: Any? { get }
}

extension Optional: OptionalTemplateValue {
    fileprivate var wrapped: Any? { self }
}

/// Templates that can include each other (partials, a parent's blocks), read once at start-up
/// (`TemplateSyntax`) and rendered straight into one buffer of UTF-8.
///
/// What shows: a string as is, a number in digits, nil nothing; `{{name}}` escapes it for HTML
/// (`ScalarHTMLEscaping`, unless the set is plain text), `{{{name}}}` does not. A section opens for
/// `true`, for each element of a non-empty list that is not nil, and for any other value that is
/// not nil (an empty string too), which it puts on top of the stack names are looked up in; an
/// inverted section opens for nil, `false` and an empty list.
struct TemplateSet: Sendable {
    enum Escaping: Sendable {
        case html
        /// Plain text (a mail's text part): values as they are.
        case none
    }

    private let templates: [String: [TemplateNode]]
    let escaping: Escaping

    /// - Parameter sources: each template's source by its name (the name partials use).
    init(sources: [String: String], escaping: Escaping) throws {
        var templates: [String: [TemplateNode]] = [:]
        for (name, source) in sources {
            templates[name] = try TemplateSyntax.parse(source, named: name)
        }
        self.templates = templates
        self.escaping = escaping
    }

    func contains(_ name: String) -> Bool { templates[name] != nil }

    /// `value` rendered by the template `name`; nil when there is no such template.
    func render(_ value: Any, template name: String) -> String? {
        renderUTF8(value, template: name).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The same as UTF-8 bytes, as a response sends them. The renderer writes bytes: the
    /// template's text and the values' bytes are copied as they are, with no string to grow.
    func renderUTF8(_ value: Any, template name: String) -> [UInt8]? {
        guard let nodes = templates[name] else { return nil }
        var renderer = TemplateRenderer(templates: templates, escaping: escaping)
        // A nil root has nothing to look names up in.
        if let root = TemplateValue(any: value) { renderer.stack.append(root) }
        renderer.render(nodes, blocks: [:], position: nil)
        return renderer.output
    }
}

/// Where a list's element stands, for `first()` and `last()`; nil outside a list.
struct TemplatePosition {
    let first: Bool
    let last: Bool
}

private struct TemplateRenderer {
    let templates: [String: [TemplateNode]]
    let escaping: TemplateSet.Escaping
    var output: [UInt8] = []
    /// What names are looked up in, innermost last.
    var stack: [TemplateValue] = []

    init(templates: [String: [TemplateNode]], escaping: TemplateSet.Escaping) {
        self.templates = templates
        self.escaping = escaping
        output.reserveCapacity(32 * 1024)
    }

    mutating func render(_ nodes: [TemplateNode], blocks: [String: [TemplateNode]], position: TemplatePosition?) {
        for node in nodes {
            switch node {
            case .text(let text):
                output.append(contentsOf: text.utf8)
            case .value(let path, let escaped):
                if let value = resolve(path, position) { write(value, escaped: escaped) }
            case .section(let path, let body):
                guard let value = resolve(path, position) else { continue }
                section(value, body, blocks: blocks, position: position)
            case .inverted(let path, let body):
                if isEmpty(resolve(path, position)) { render(body, blocks: blocks, position: position) }
            case .partial(let name):
                guard let partial = templates[name] else { continue }
                render(partial, blocks: blocks, position: nil)
            case .parent(let name, let overrides):
                guard let parent = templates[name] else { continue }
                render(parent, blocks: blocks.merging(overrides) { outer, _ in outer }, position: nil)
            case .block(let name, let defaultBody):
                render(blocks[name] ?? defaultBody, blocks: blocks, position: nil)
            }
        }
    }

    private mutating func section(_ value: TemplateValue, _ body: [TemplateNode], blocks: [String: [TemplateNode]], position: TemplatePosition?) {
        switch value {
        case .flag(let flag):
            if flag { render(body, blocks: blocks, position: position) }
        case .list(let list):
            list.forEachElement { element, position in
                stack.append(element)
                render(body, blocks: blocks, position: position)
                stack.removeLast()
            }
        case .text, .number, .values, .reflected:
            stack.append(value)
            render(body, blocks: blocks, position: nil)
            stack.removeLast()
        }
    }

    private func isEmpty(_ value: TemplateValue?) -> Bool {
        switch value {
        case nil: true
        case .flag(let flag): !flag
        case .list(let list): list.isEmpty
        case .text, .number, .values, .reflected: false
        }
    }

    /// The first value from the top of the stack that has the first name; the rest are read from
    /// what it gave.
    private func resolve(_ path: ValuePath, _ position: TemplatePosition?) -> TemplateValue? {
        switch path {
        case .current:
            return stack.last
        case .position(.first):
            return position.map { .flag($0.first) }
        case .position(.last):
            return position.map { .flag($0.last) }
        case .names(let names):
            // By index, from the top: each value is read where it lies, not copied out.
            var found: TemplateValue?
            var index = stack.count - 1
            while index >= 0, found == nil {
                found = Self.child(of: stack[index], named: names[0])
                index -= 1
            }
            guard var value = found else { return nil }
            for name in names.dropFirst() {
                guard let next = Self.child(of: value, named: name) else { return nil }
                value = next
            }
            return value
        }
    }

    private static func child(of value: TemplateValue, named name: String) -> TemplateValue? {
        switch value {
        case .values(let values):
            values.value(named: name)
        case .reflected(let value):
            Mirror(reflecting: value).children.first { $0.label == name }.flatMap { TemplateValue(any: $0.value) }
        case .text, .number, .flag, .list:
            nil
        }
    }

    private mutating func write(_ value: TemplateValue, escaped: Bool) {
        let text: String
        switch value {
        case .text(let string): text = string
        case .number(let number): text = String(number)
        case .flag(let flag): text = String(flag)
        case .values, .list, .reflected: text = String(describing: value.value)
        }
        if escaped, escaping == .html {
            ScalarHTMLEscaping.append(text, to: &output)
        } else {
            output.append(contentsOf: text.utf8)
        }
    }
}
