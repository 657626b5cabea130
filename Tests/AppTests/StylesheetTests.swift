import Foundation
import Testing

/// What the stylesheet promises every browser, checked on its text.
@Suite("The stylesheet")
struct StylesheetTests {
    static func stylesheet() throws -> String {
        try String(contentsOfFile: "\(repositoryRoot)/Public/assets/css/app.css", encoding: .utf8)
    }

    @Test("a browser without light-dark() (Safari before 17.5, Chrome before 123) gets every colour, each the light one of its pair")
    func coloursWithoutLightDark() throws {
        let css = try Self.stylesheet()
        let pair = try Regex(#"(?m)^  (--[a-z-]+): light-dark\((#[0-9a-f]+|rgba\([^)]*\)), [^;]+\);"#)
        let pairs = css.matches(of: pair).map { (String($0.output[1].substring!), String($0.output[2].substring!)) }
        #expect(pairs.count >= 18, "the palette is in light-dark() pairs")
        let block = try #require(css.range(of: "@supports not (color: light-dark(#000, #fff)) {"))
        let palette = try #require(css.range(of: "\n  :root {", range: block.upperBound..<css.endIndex))
        let fallback = String(css[palette.upperBound...].prefix { $0 != "}" })
        #expect(css[block.upperBound..<palette.lowerBound].contains("html:root[data-theme] { color-scheme: light; }"),
                "its fields and buttons light too, whatever theme was chosen")
        for (name, light) in pairs {
            #expect(fallback.contains("\(name): \(light);"), "\(name) is \(light) without light-dark()")
        }
    }
}
