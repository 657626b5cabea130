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
    /// scalars a scalar-wise pass would. The bytes are scanned where they lie (a native string's
    /// storage) and the runs between the five are appended as they are.
    static func append(_ text: String, to output: inout String) {
        let scanned: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            var runStart = 0
            for index in bytes.indices {
                guard let entity = entity(for: bytes[index]) else { continue }
                appendRun(of: text, from: runStart, to: index, to: &output)
                output += entity
                runStart = index + 1
            }
            if runStart == 0 {
                output += text
            } else {
                appendRun(of: text, from: runStart, to: bytes.count, to: &output)
            }
        }
        if scanned == nil {
            // A bridged string without contiguous UTF-8: the same, through its UTF-8 view.
            var native = text
            native.makeContiguousUTF8()
            append(native, to: &output)
        }
    }

    private static func entity(for byte: UInt8) -> String? {
        switch byte {
        case UInt8(ascii: "<"): "&lt;"
        case UInt8(ascii: ">"): "&gt;"
        case UInt8(ascii: "&"): "&amp;"
        case UInt8(ascii: "\""): "&quot;"
        case UInt8(ascii: "'"): "&#39;"
        default: nil
        }
    }

    /// `text`'s UTF-8 bytes from `start` up to `end`, appended (offsets into a native string are
    /// indices at once).
    private static func appendRun(of text: String, from start: Int, to end: Int, to output: inout String) {
        guard start < end else { return }
        let utf8 = text.utf8
        output += text[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: end)]
    }
}
