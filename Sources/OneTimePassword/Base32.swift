/// RFC 4648 Base32 (upper-case alphabet), as used for OTP secrets in authenticator apps.
///
/// Encoding writes no `=` padding (authenticator apps expect none in `otpauth://` URIs).
/// Decoding is lenient about what people type or paste: letters of either case, spaces,
/// and trailing `=` padding are accepted; anything else, an impossible length, or non-zero
/// leftover bits make it return `nil`, so every accepted string maps to exactly one byte string.
public enum Base32 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Encodes bytes as upper-case Base32 without padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bitCount = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bitCount += 8
            while bitCount >= 5 {
                bitCount -= 5
                output.append(alphabet[Int((buffer >> UInt32(bitCount)) & 0x1f)])
            }
        }
        if bitCount > 0 {
            output.append(alphabet[Int((buffer << UInt32(5 - bitCount)) & 0x1f)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes Base32 text; returns `nil` when it is not valid Base32.
    public static func decode(_ text: String) -> [UInt8]? {
        var symbols: [UInt8] = []
        var sawPadding = false
        for character in text.utf8 {
            switch character {
            case UInt8(ascii: " "):
                continue
            case UInt8(ascii: "="):
                sawPadding = true
            default:
                // Padding only ever ends the text; a symbol after it means a mangled paste.
                guard !sawPadding, let value = value(of: character) else { return nil }
                symbols.append(value)
            }
        }
        // 8 symbols carry 5 bytes; a final group of 1, 3 or 6 symbols cannot come from any byte count.
        guard ![1, 3, 6].contains(symbols.count % 8) else { return nil }

        var output: [UInt8] = []
        output.reserveCapacity(symbols.count * 5 / 8)
        var buffer: UInt32 = 0
        var bitCount = 0
        for symbol in symbols {
            buffer = (buffer << 5) | UInt32(symbol)
            bitCount += 5
            if bitCount >= 8 {
                bitCount -= 8
                output.append(UInt8((buffer >> UInt32(bitCount)) & 0xff))
            }
        }
        // Leftover bits must be zero, otherwise two different strings would decode to the same bytes.
        guard buffer & ((1 << UInt32(bitCount)) - 1) == 0 else { return nil }
        return output
    }

    private static func value(of character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return character - UInt8(ascii: "a")
        case UInt8(ascii: "2")...UInt8(ascii: "7"): return character - UInt8(ascii: "2") + 26
        default: return nil
        }
    }
}
