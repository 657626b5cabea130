/// HTML escaping per Unicode scalar: every `<`, `>`, `&`, `"` and `'` scalar is escaped wherever it
/// stands. (An escaper that compares whole Characters lets `"` followed by a combining mark — one
/// Character — slip through unescaped, and it could end an attribute value.)
struct ScalarHTMLEscaping {
    func escapeText(_ text: String) -> String {
        var escaped: [UInt8] = []
        Self.append(text, to: &escaped)
        return String(decoding: escaped, as: UTF8.self)
    }

    /// Appends `text`'s UTF-8 escaped, in one pass over its bytes: the five characters are ASCII,
    /// and an ASCII byte is always a scalar of its own in UTF-8, so this escapes exactly the
    /// scalars a scalar-wise pass would. The runs between the five are copied as they are.
    static func append(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            for index in 0..<bytes.count where needsEntity(bytes[index]) {
                guard let entity = entity(for: bytes[index]) else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                output.append(contentsOf: entity)
                runStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
    }

    /// One bit per byte below 64 for `"`, `&`, `'`, `<` and `>`: a quick test per byte, with no
    /// branch for the letters that make up most of what is escaped. `entity(for:)` decides.
    private static let entityBits: UInt64 = 1 << 0x22 | 1 << 0x26 | 1 << 0x27 | 1 << 0x3C | 1 << 0x3E

    @inline(__always)
    private static func needsEntity(_ byte: UInt8) -> Bool {
        byte < 64 && entityBits & (1 << UInt64(byte)) != 0
    }

    private static func entity(for byte: UInt8) -> StaticString? {
        switch byte {
        case UInt8(ascii: "<"): "&lt;"
        case UInt8(ascii: ">"): "&gt;"
        case UInt8(ascii: "&"): "&amp;"
        case UInt8(ascii: "\""): "&quot;"
        case UInt8(ascii: "'"): "&#39;"
        default: nil
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate mutating func append(contentsOf text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }
}
