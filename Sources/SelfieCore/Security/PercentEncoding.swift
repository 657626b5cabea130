/// RFC 3986 percent-encoding: unreserved characters (`A–Z a–z 0–9 - . _ ~`) stay, every other
/// byte of the UTF-8 becomes `%XX`. What SigV4, OAuth 1.0a and safe query strings all need.
public enum PercentEncoding {
    /// `text` with every byte but the unreserved ones (RFC 3986: `A–Z a–z 0–9 - _ . ~`, and `/`
    /// when `keepingSlash`) written as `%XX`. Text that needs none comes back as it is: a page
    /// of photos encodes a public ID, already URL-safe, for every card and image link.
    public static func encode(_ text: String, keepingSlash: Bool = false) -> String {
        let bytes = text.utf8
        guard bytes.contains(where: { !isKept($0, keepingSlash: keepingSlash) }) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3)
        let digits: StaticString = "0123456789ABCDEF"
        digits.withUTF8Buffer { digits in
            for byte in bytes {
                if isKept(byte, keepingSlash: keepingSlash) {
                    out.append(byte)
                } else {
                    out.append(UInt8(ascii: "%"))
                    out.append(digits[Int(byte >> 4)])
                    out.append(digits[Int(byte & 0x0F)])
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isKept(_ byte: UInt8, keepingSlash: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
            true
        case UInt8(ascii: "/"):
            keepingSlash
        default:
            false
        }
    }

    /// `name=value&…`, each side encoded.
    public static func query(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }
}

extension Sequence<UInt8> {
    /// Lower-case hex, two digits a byte (digests, HMACs, checksums), without a `String(format:)`
    /// per byte.
    public var hexString: String {
        let digits: StaticString = "0123456789abcdef"
        var out: [UInt8] = []
        out.reserveCapacity(underestimatedCount * 2)
        digits.withUTF8Buffer { digits in
            for byte in self {
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
