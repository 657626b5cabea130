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
    var templateElements: [Any] { get }
    var isEmpty: Bool { get }
}

extension Array: TemplateList {
    var templateElements: [Any] { map { $0 } }
}

/// An optional inside an `Any` (a reflected field, a dictionary's value): nil is no value.
private protocol OptionalTemplateValue {
    var wrapped: Any? { get }
}

extension Optional: OptionalTemplateValue {
    fileprivate var wrapped: Any? { self }
}

/// Templates that can include each other (partials, a parent's blocks), read once at start-up
/// (`TemplateSyntax`) and rendered straight into one string.
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
        guard let nodes = templates[name] else { return nil }
        var renderer = TemplateRenderer(templates: templates, escaping: escaping)
        renderer.stack.append(TemplateRenderer.Scope(value))
        renderer.render(nodes, blocks: [:], position: nil)
        return renderer.output
    }
}

private struct TemplateRenderer {
    let templates: [String: [TemplateNode]]
    let escaping: TemplateSet.Escaping
    var output = ""
    /// What names are looked up in, innermost last.
    var stack: [Scope] = []

    init(templates: [String: [TemplateNode]], escaping: TemplateSet.Escaping) {
        self.templates = templates
        self.escaping = escaping
        output.reserveCapacity(16 * 1024)
    }

    /// A value on the stack, sorted once as it goes on: answers by name, has no fields, or is reflected.
    struct Scope {
        let value: Any
        let lookup: Lookup

        enum Lookup {
            case named(any TemplateValues)
            case none
            case reflected
        }

        /// The cast to `TemplateValues` first: most values pushed (a list's cards, a page) answer
        /// by name, and a cast from `Any` looks inside an optional by itself. Each failed cast to
        /// a protocol costs a conformance lookup: 7 % of a gallery's CPU went to casts.
        init(_ value: Any) {
            if let named = value as? any TemplateValues {
                self.init(named: named)
            } else {
                let value = (value as? any OptionalTemplateValue)?.wrapped ?? value
                self.init(value: value, lookup: value is String || value is Bool || value is Int ? .none : .reflected)
            }
        }

        init(named: any TemplateValues) {
            self.init(value: named, lookup: .named(named))
        }

        private init(value: Any, lookup: Lookup) {
            self.value = value
            self.lookup = lookup
        }

        func child(named name: String) -> Any? {
            switch lookup {
            case .named(let values):
                return values.value(named: name)
            case .none:
                return nil
            case .reflected:
                guard let field = Mirror(reflecting: value).children.first(where: { $0.label == name })?.value else { return nil }
                return present(field)
            }
        }
    }

    /// Where a list's element stands, for `first()` and `last()`; nil outside a list.
    struct Position {
        let first: Bool
        let last: Bool
    }

    mutating func render(_ nodes: [TemplateNode], blocks: [String: [TemplateNode]], position: Position?) {
        for node in nodes {
            switch node {
            case .text(let text):
                output += text
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
    private mutating func section(_ value: Any?, _ body: [TemplateNode], blocks: [String: [TemplateNode]], position: Position?) {
        guard let value else { return }
        if let flag = value as? Bool {
            if flag { render(body, blocks: blocks, position: position) }
        } else if let named = value as? any TemplateValues {
            stack.append(Scope(named: named))
            render(body, blocks: blocks, position: nil)
            stack.removeLast()
        } else if let list = value as? any TemplateList {
            let elements = list.templateElements
            for (index, element) in elements.enumerated() {
                stack.append(Scope(element))
                render(body, blocks: blocks, position: Position(first: index == 0, last: index == elements.count - 1))
                stack.removeLast()
            }
        } else if let value = present(value) {
            stack.append(Scope(value))
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
    private func resolve(_ path: ValuePath, _ position: Position?) -> Any? {
        switch path {
        case .current:
            return stack.last?.value
        case .position(.first):
            return position?.first
        case .position(.last):
            return position?.last
        case .names(let names):
            var found: Any?
            for scope in stack.reversed() {
                if let value = scope.child(named: names[0]) {
                    found = value
                    break
                }
            }
            guard var value = found else { return nil }
            for name in names.dropFirst() {
                guard let next = Scope(value).child(named: name) else { return nil }
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
            output += text
        }
    }
}

/// nil for an optional without a value (however deeply it is wrapped), else the value.
private func present(_ value: Any) -> Any? {
    guard let optional = value as? any OptionalTemplateValue else { return value }
    return optional.wrapped.flatMap(present)
}
