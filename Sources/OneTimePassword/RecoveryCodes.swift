import Crypto

/// Single-use recovery codes for a user who lost their authenticator: `xxxx-xxxx-xxxx`,
/// 12 symbols from Crockford's Base32 alphabet (no i, l, o, u), so 60 random bits each.
///
/// Storage: keep only `storageHash(of:)` of each code, and delete (or mark used) the one that
/// matched — single use is the caller's job. Plain SHA-256 is enough here, unlike for passwords:
/// slow, salted hashes exist because people choose guessable passwords; these codes are uniformly
/// random over 2^60 values, so reversing one leaked hash takes ~2^59 SHA-256 on average (years of
/// a GPU), and no precomputed table covers that space. A fast hash also lets a login check a code
/// against all ten stored hashes in microseconds instead of ten bcrypt runs. All calls are cheap.
public enum RecoveryCodes {
    /// Symbols per code (5 bits each).
    public static let symbolCount = 12

    private static let alphabet: [UInt8] = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)

    /// `count` fresh random codes, formatted `xxxx-xxxx-xxxx`, to show the user once.
    public static func generate(count: Int = 10) -> [String] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in
            // 32 symbols divide 256 evenly, so masking a random byte gives each symbol the same chance.
            let symbols = (0..<symbolCount).map { _ in alphabet[Int(UInt8.random(in: .min ... .max, using: &generator) & 0x1f)] }
            return format(symbols)
        }
    }

    /// The canonical form of typed input (lower case, no spaces or dashes, `o`→`0`, `i`/`l`→`1`),
    /// or `nil` if it cannot be a recovery code.
    public static func normalize(_ input: String) -> String? {
        var symbols: [UInt8] = []
        for byte in input.utf8 {
            var symbol = byte
            if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(symbol) { symbol += 32 }
            switch symbol {
            case UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "\t"): continue
            // Crockford's reading of look-alikes: a user copying from paper may type these.
            case UInt8(ascii: "o"): symbol = UInt8(ascii: "0")
            case UInt8(ascii: "i"), UInt8(ascii: "l"): symbol = UInt8(ascii: "1")
            default: break
            }
            guard alphabet.contains(symbol) else { return nil }
            symbols.append(symbol)
        }
        guard symbols.count == symbolCount else { return nil }
        return String(decoding: symbols, as: UTF8.self)
    }

    /// SHA-256 of the normalised code (32 bytes) — the value to store; `nil` if `code` is not a code.
    public static func storageHash(of code: String) -> [UInt8]? {
        guard let normalized = normalize(code) else { return nil }
        return Array(SHA256.hash(data: Array(normalized.utf8)))
    }

    /// Index in `storedHashes` of the hash that `input` matches, or `nil`.
    /// Compares against every stored hash in constant time, whichever matches.
    public static func firstMatch(_ input: String, storedHashes: [[UInt8]]) -> Int? {
        guard let hash = storageHash(of: input) else { return nil }
        var found: Int?
        for (index, stored) in storedHashes.enumerated() where constantTimeEquals(hash, stored) && found == nil {
            found = index
        }
        return found
    }

    private static func format(_ symbols: [UInt8]) -> String {
        var text = ""
        for (index, symbol) in symbols.enumerated() {
            if index > 0, index % 4 == 0 { text += "-" }
            text.unicodeScalars.append(Unicode.Scalar(symbol))
        }
        return text
    }
}
