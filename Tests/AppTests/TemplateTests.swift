@testable import App
import Testing

/// The template renderer (`TemplateSet`) on small templates, against what the Mustache
/// specification says they give. The pages themselves are checked by every page test.
@Suite("Templates")
struct TemplateTests {
    struct Card: TemplateValues {
        let title: String
        let tags: [String]
        let size: Size?
        func value(named name: String) -> TemplateValue? {
            switch name {
            case "title": title.templateValue
            case "tags": tags.templateValue
            case "size": size.map { .reflected($0) }
            default: nil
            }
        }
    }

    /// No `TemplateValues`: read by reflection.
    struct Size {
        let width: Int
        let label: String?
    }

    static func render(_ sources: [String: String], _ value: Any, escaping: TemplateSet.Escaping = .html) throws -> String? {
        try TemplateSet(sources: sources, escaping: escaping).render(value, template: "main")
    }

    @Test("values are escaped per scalar in HTML, raw with three braces or &, as they are in plain text; nil shows nothing")
    func values() throws {
        let page: [String: Any] = ["name": "<Ada & \"Bob\">", "count": 3, "missing": String?.none as Any]
        #expect(try Self.render(["main": "{{name}}|{{{name}}}|{{& name }}|{{count}}|{{missing}}|{{nothing}}"], page)
            == "&lt;Ada &amp; &quot;Bob&quot;&gt;|<Ada & \"Bob\">|<Ada & \"Bob\">|3||")
        #expect(try Self.render(["main": "{{name}}"], page, escaping: .none) == "<Ada & \"Bob\">")
    }

    @Test("sections: true, each element of a list, any other value but nil (an empty string too); inverted: nil, false, an empty list")
    func sections() throws {
        let card = Card(title: "Sea", tags: ["a", "b", "c"], size: Size(width: 400, label: nil))
        let page: [String: Any] = ["card": card, "yes": true, "no": false, "empty": "", "none": [String](), "nothing": Int?.none as Any]
        let main = """
            {{#yes}}Y{{/yes}}{{#no}}N{{/no}}{{^no}}!N{{/no}}{{#empty}}E{{/empty}}{{^none}}0{{/none}}{{#none}}X{{/none}}\
            {{^nothing}}-{{/nothing}}{{#nothing}}X{{/nothing}}
            {{#card}}{{title}}: {{#tags}}{{.}}{{^last()}}, {{/last()}}{{/tags}} ({{size.width}}{{#size.label}}X{{/size.label}}){{/card}}
            """
        #expect(try Self.render(["main": main], page) == "Y!NE0-\nSea: a, b, c (400)")
        // first() and last() on each element; text and values beyond ASCII go through as they are.
        let marks = "{{#tags}}{{#first()}}«{{/first()}}{{.}}{{#last()}}»{{/last()}}{{^first()}}·{{/first()}}{{/tags}}"
        #expect(try Self.render(["main": marks], ["tags": ["é", "b", "😀"]]) == "«éb·😀»·")
        #expect(try Self.render(["main": marks], ["tags": ["ß"]]) == "«ß»")
    }

    @Test("a list renders alike whether its elements say what they are or are cast from Any; an element without a value is skipped")
    func lists() throws {
        let main = "{{#tags}}{{#first()}}[{{/first()}}{{.}}{{#last()}}]{{/last()}}{{/tags}}|{{#cards}}{{title}}:{{#tags}}{{.}}{{/tags}};{{/cards}}"
        let cards = [Card(title: "Sea", tags: ["a", "b"], size: nil), Card(title: "Sky", tags: [], size: nil)]
        let typed: [String: Any] = ["tags": ["x", "y", "z"], "cards": cards]
        let untyped: [String: Any] = ["tags": ["x", "y", "z"] as [Any], "cards": cards as [Any]]
        #expect(try Self.render(["main": main], typed) == "[xyz]|Sea:ab;Sky:;")
        #expect(try Self.render(["main": main], untyped) == "[xyz]|Sea:ab;Sky:;")
        // nil elements: the others keep their places, first() and last() included.
        #expect(try Self.render(["main": main], ["tags": [nil, "y", "z"] as [String?]]) == "yz]|")
        #expect(try Self.render(["main": main], ["tags": ["x", 2, nil] as [Any?]]) == "[x2|")
    }

    @Test("a name not in the innermost value is looked up in the ones around it; a dotted name's rest is not")
    func stack() throws {
        let page: [String: Any] = ["greeting": "Hello", "title": "Outer", "card": Card(title: "Inner", tags: ["x"], size: nil)]
        #expect(try Self.render(["main": "{{#card}}{{greeting}} {{title}} {{#tags}}{{title}}{{/tags}}{{card.title}}|{{card.greeting}}|{{/card}}"], page)
            == "Hello Inner InnerInner||")
    }

    @Test("a line with one standalone tag leaves no blank line; other lines keep their spaces")
    func standaloneLines() throws {
        let main = "<ul>\n  {{#items}}\n  <li>{{.}}</li>\n  {{/items}}\n  {{! a comment\n  over two lines }}\n</ul>\n  {{#items}}{{.}}{{/items}}  \n"
        #expect(try Self.render(["main": main], ["items": ["a", "b"]]) == "<ul>\n  <li>a</li>\n  <li>b</li>\n</ul>\n  ab  \n")
        #expect(try Self.render(["main": "a\r\n{{#x}}\r\nb\r\n{{/x}}\r\nc"], ["x": true]) == "a\r\nb\r\nc")
    }

    @Test("partials see the same values; a parent's blocks are replaced, the outermost replacement winning")
    func partialsAndParents() throws {
        let sources = [
            "layout": "<title>{{$title}}Selfie{{/title}}</title>\n<main>\n{{$content}}nothing{{/content}}\n</main>\n{{> footer}}",
            "footer": "<footer>{{$title}}{{/title}} by {{name}}</footer>",
            "item": "<b>{{name}}</b>\n<i>!</i>\n",
            "middle": "{{<layout}}{{$title}}Middle{{/title}}{{$content}}middle{{/content}}{{/layout}}",
            "main": "{{<middle}}\n{{$title}}Page{{/title}}\n{{/middle}}",
            "inline": "<div>{{> item}}</div>",
        ]
        let set = try TemplateSet(sources: sources, escaping: .html)
        #expect(set.render(["name": "Ada"], template: "main") == "<title>Page</title>\n<main>\nmiddle\n</main>\n<footer>Page by Ada</footer>")
        #expect(set.render(["name": "Ada"], template: "inline") == "<div><b>Ada</b>\n<i>!</i>\n</div>")
        #expect(set.render(["name": "Ada"], template: "no such template") == nil)
    }

    @Test("a template the renderer cannot read stops start-up, naming the template and line")
    func refused() {
        for (source, problem) in [
            ("a\n{{#open}}\nb", "is never closed"),
            ("{{#a}}{{/b}}", "closes nothing open"),
            ("{{=<% %>=}}", "not supported"),
            ("{{% CONTENT_TYPE: TEXT }}", "not supported"),
            ("{{a b}}", "is not a name"),
            ("{{upper(name)}}", "not a name this renderer knows"),
            ("x {{name", "not closed"),
            ("{{<layout}}{{name}}{{/layout}}", "only {{$block}}"),
            ("<div>\n  {{> item}}\n</div>", "indented partials are not supported"),
        ] {
            #expect {
                try TemplateSet(sources: ["broken": source], escaping: .html)
            } throws: { error in
                "\(error)".hasPrefix("template broken, line ") && "\(error)".contains(problem)
            }
        }
    }
}
