/// HTML escaping per Unicode scalar: every `<`, `>`, `&`, `"` and `'` scalar is escaped wherever it
/// stands. (An escaper that compares whole Characters lets `"` followed by a combining mark — one
/// Character — slip through unescaped, and it could end an attribute value.)
struct ScalarHTMLEscaping {
    func escapeText(_ text: String) -> String {
        guard text.utf8.contains(where: Self.isSpecial) else { return text }
        var escaped = ""
        Self.append(text, to: &escaped)
        return escaped
    }

    /// Appends `text` escaped. Works on the UTF-8 bytes: the five characters are ASCII, and an
    /// ASCII byte is always a scalar of its own in UTF-8, so this escapes exactly the scalars a
    /// scalar-wise pass would. Text with nothing to escape (most of it: names, dates, URLs without
    /// `&`) is appended as is.
    static func append(_ text: String, to output: inout String) {
        guard text.utf8.contains(where: isSpecial) else {
            output += text
            return
        }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "<"): escaped.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): escaped.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "&"): escaped.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "\""): escaped.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): escaped.append(contentsOf: "&#39;".utf8)
            default: escaped.append(byte)
            }
        }
        output += String(decoding: escaped, as: UTF8.self)
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"), UInt8(ascii: "\""), UInt8(ascii: "'"): true
        default: false
        }
    }
}
