/// HTML escaping per Unicode scalar: every `<`, `>`, `&`, `"` and `'` scalar is escaped wherever it
/// stands. (An escaper that compares whole Characters lets `"` followed by a combining mark — one
/// Character — slip through unescaped, and it could end an attribute value.)
struct ScalarHTMLEscaping {
    func escapeText(_ text: String) -> String {
        var escaped = ""
        Self.append(text, to: &escaped)
        return escaped
    }

    /// Appends `text` escaped, in one pass over its UTF-8 bytes: the five characters are ASCII,
    /// and an ASCII byte is always a scalar of its own in UTF-8, so this escapes exactly the
    /// scalars a scalar-wise pass would. The runs between them are appended as they are.
    static func append(_ text: String, to output: inout String) {
        let bytes = text.utf8
        var runStart = bytes.startIndex
        var index = runStart
        while index != bytes.endIndex {
            let entity: String
            switch bytes[index] {
            case UInt8(ascii: "<"): entity = "&lt;"
            case UInt8(ascii: ">"): entity = "&gt;"
            case UInt8(ascii: "&"): entity = "&amp;"
            case UInt8(ascii: "\""): entity = "&quot;"
            case UInt8(ascii: "'"): entity = "&#39;"
            default:
                bytes.formIndex(after: &index)
                continue
            }
            output += text[runStart..<index]
            output += entity
            bytes.formIndex(after: &index)
            runStart = index
        }
        if runStart == bytes.startIndex {
            output += text
        } else {
            output += text[runStart...]
        }
    }
}
