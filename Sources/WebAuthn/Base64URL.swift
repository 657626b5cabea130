/// Base64url without padding (RFC 4648 §5), the encoding WebAuthn uses for challenges in
/// clientDataJSON and that `PublicKeyCredential.toJSON()` uses for every binary field.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes without `=` padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var buffer: UInt32 = 0
        var bitCount = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bitCount += 8
            while bitCount >= 6 {
                bitCount -= 6
                output.append(alphabet[Int((buffer >> UInt32(bitCount)) & 0x3f)])
            }
        }
        if bitCount > 0 {
            output.append(alphabet[Int((buffer << UInt32(6 - bitCount)) & 0x3f)])
        }
        return String(decoding: output, as: UTF8.self)
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

    private static func value(of symbol: UInt8) -> UInt8? {
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
