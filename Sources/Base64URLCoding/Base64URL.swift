/// Base64url without padding (RFC 4648 §5): WebAuthn's binary fields, signed media URLs, CSRF and
/// random tokens. Encoding writes byte by byte into the string's storage.
/// Signed media URLs and CSRF tokens are made on every page and API answer: going through
/// Foundation's base64 and three `replacingOccurrences` was a sixth of get_photos' CPU.
public enum Base64URL {
    /// The 64 symbols, in the order of their values.
    public static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes without `=` padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let count = (bytes.count * 4 + 2) / 3
        guard count > 0 else { return "" }
        return alphabet.withUnsafeBufferPointer { alphabet in
            String(unsafeUninitializedCapacity: count) { out in
                var written = 0
                var index = bytes.startIndex
                var remaining = bytes.count
                while remaining >= 3 {
                    let b0 = bytes[index]
                    bytes.formIndex(after: &index)
                    let b1 = bytes[index]
                    bytes.formIndex(after: &index)
                    let b2 = bytes[index]
                    bytes.formIndex(after: &index)
                    out[written] = alphabet[Int(b0 >> 2)]
                    out[written + 1] = alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)]
                    out[written + 2] = alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)]
                    out[written + 3] = alphabet[Int(b2 & 0x3F)]
                    written += 4
                    remaining -= 3
                }
                if remaining > 0 {
                    let b0 = bytes[index]
                    let b1: UInt8 = remaining == 2 ? bytes[bytes.index(after: index)] : 0
                    out[written] = alphabet[Int(b0 >> 2)]
                    out[written + 1] = alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)]
                    written += 2
                    if remaining == 2 {
                        out[written] = alphabet[Int((b1 & 0x0F) << 2)]
                        written += 1
                    }
                }
                return written
            }
        }
    }

    /// Decodes strictly: only `A–Z a–z 0–9 - _`, no padding, no whitespace, zero leftover bits,
    /// so each byte string has exactly one accepted spelling. Returns `nil` otherwise.
    public static func decode(_ text: String) -> [UInt8]? {
        let symbols = Array(text.utf8)
        guard symbols.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(symbols.count * 3 / 4)
        var buffer: UInt32 = 0
        var bitCount = 0
        for symbol in symbols {
            guard let value = value(of: symbol) else { return nil }
            buffer = (buffer << 6) | UInt32(value)
            bitCount += 6
            if bitCount >= 8 {
                bitCount -= 8
                output.append(UInt8((buffer >> UInt32(bitCount)) & 0xff))
            }
        }
        guard buffer & ((1 << UInt32(bitCount)) - 1) == 0 else { return nil }
        return output
    }

    /// Whether `symbol` is one of the 64 (`A–Z a–z 0–9 - _`). Inlinable: blob keys are checked
    /// byte by byte on every photo row read.
    @inlinable
    public static func isSymbol(_ symbol: UInt8) -> Bool { value(of: symbol) != nil }

    @inlinable
    static func value(of symbol: UInt8) -> UInt8? {
        switch symbol {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return symbol - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return symbol - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return symbol - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
