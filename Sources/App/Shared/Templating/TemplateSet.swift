/// Values a template looks into by name. The types pages render often answer by name; any other
/// value is read by reflection (a `Mirror` of the whole value for every name looked up), which
/// is fine for a page shown now and then and too slow for a grid of photo cards.
protocol TemplateValues {
    func value(named name: String) -> Any?
}

extension Dictionary: TemplateValues where Key == String {
    func value(named name: String) -> Any? { self[name] }
}

/// A list a section repeats its content for, once per element.
protocol TemplateList {
    var isEmpty: Bool { get }
    /// Each element as a scope, with where it stands.
    func forEachScope(_ body: (TemplateScope, TemplatePosition) -> Void)
}

extension Array: TemplateList {
    /// Each element goes onto the stack as it is, sorted from its own type: no copy of it boxed
    /// as `Any` first (a box copies a struct whole, retaining each of its strings).
    func forEachScope(_ body: (TemplateScope, TemplatePosition) -> Void) {
        let last = count - 1
        for (index, element) in enumerated() {
            body(TemplateScope(element), TemplatePosition(first: index == 0, last: index == last))
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
/// `true`, for each element of a non-empty list, and for any other value that is not nil (an empty
/// string too), which it puts on top of the stack names are looked up in; an inverted section
/// opens for nil, `false` and an empty list.
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
        renderer.stack.append(TemplateScope(value))
        renderer.render(nodes, blocks: [:], position: nil)
        return renderer.output
    }
}

/// A value on the stack a template looks names up in, sorted once as it goes on: it answers by
/// name, has no fields, or is reflected. One existential per scope, so that pushing one (or
/// copying it) retains one value.
struct TemplateScope {
    fileprivate enum Kind {
        case named(any TemplateValues)
        /// A string, a flag or a number: no names inside.
        case plain(Any)
        case reflected(Any)
    }

    fileprivate let kind: Kind

    /// The cast to `TemplateValues` first: most values pushed (a list's cards, a page) answer by
    /// name, and a cast looks inside an optional by itself. Each failed cast to a protocol costs
    /// a conformance lookup: 7 % of a gallery's CPU went to casts. Generic, so that a list's
    /// element is cast from its own type, not boxed as `Any` on the way.
    init<Value>(_ value: Value) {
        if let named = value as? any TemplateValues {
            kind = .named(named)
        } else {
            let value = (value as? any OptionalTemplateValue)?.wrapped ?? value
            kind = value is String || value is Bool || value is Int ? .plain(value) : .reflected(value)
        }
    }

    fileprivate init(named: any TemplateValues) {
        kind = .named(named)
    }

    var value: Any {
        switch kind {
        case .named(let value): value
        case .plain(let value), .reflected(let value): value
        }
    }

    func child(named name: String) -> Any? {
        switch kind {
        case .named(let values):
            return values.value(named: name)
        case .plain:
            return nil
        case .reflected(let value):
            guard let field = Mirror(reflecting: value).children.first(where: { $0.label == name })?.value else { return nil }
            return present(field)
        }
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
    var stack: [TemplateScope] = []

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
                section(resolve(path, position), body, blocks: blocks, position: position)
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

    /// Casts from `Any` look inside optionals, so the concrete and common cases come before the
    /// check for an optional without a value.
    private mutating func section(_ value: Any?, _ body: [TemplateNode], blocks: [String: [TemplateNode]], position: TemplatePosition?) {
        guard let value else { return }
        if let flag = value as? Bool {
            if flag { render(body, blocks: blocks, position: position) }
        } else if let named = value as? any TemplateValues {
            stack.append(TemplateScope(named: named))
            render(body, blocks: blocks, position: nil)
            stack.removeLast()
        } else if let list = value as? any TemplateList {
            list.forEachScope { scope, position in
                stack.append(scope)
                render(body, blocks: blocks, position: position)
                stack.removeLast()
            }
        } else if let value = present(value) {
            stack.append(TemplateScope(value))
            render(body, blocks: blocks, position: nil)
            stack.removeLast()
        }
    }

    private func isEmpty(_ value: Any?) -> Bool {
        guard let value else { return true }
        if let flag = value as? Bool { return !flag }
        if let list = value as? any TemplateList { return list.isEmpty }
        return present(value) == nil
    }

    /// The first scope from the top that has the first name; the rest are read from what it gave.
    private func resolve(_ path: ValuePath, _ position: TemplatePosition?) -> Any? {
        switch path {
        case .current:
            return stack.last?.value
        case .position(.first):
            return position?.first
        case .position(.last):
            return position?.last
        case .names(let names):
            // By index, from the top: each scope is read where it lies, not copied out.
            var found: Any?
            var index = stack.count - 1
            while index >= 0, found == nil {
                found = stack[index].child(named: names[0])
                index -= 1
            }
            guard var value = found else { return nil }
            for name in names.dropFirst() {
                guard let next = TemplateScope(value).child(named: name) else { return nil }
                value = next
            }
            return value
        }
    }

    private mutating func write(_ value: Any, escaped: Bool) {
        let text: String
        if let string = value as? String {
            text = string
        } else if let number = value as? Int {
            text = String(number)
        } else if let optional = value as? any OptionalTemplateValue {
            if let wrapped = optional.wrapped { write(wrapped, escaped: escaped) }
            return
        } else {
            text = String(describing: value)
        }
        if escaped, escaping == .html {
            ScalarHTMLEscaping.append(text, to: &output)
        } else {
            output.append(contentsOf: text.utf8)
        }
    }
}

/// nil for an optional without a value (however deeply it is wrapped), else the value.
private func present(_ value: Any) -> Any? {
    guard let optional = value as? any OptionalTemplateValue else { return value }
    return optional.wrapped.flatMap(present)
}
