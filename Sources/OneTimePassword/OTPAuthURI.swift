/// Builds the Key URI that authenticator apps scan:
/// `otpauth://totp/ISSUER:ACCOUNT?secret=…&issuer=…&algorithm=SHA1&digits=6&period=30`.
public enum OTPAuthURI {
    /// The label's `:` stays literal; issuer and account are percent-encoded (RFC 3986, UTF-8),
    /// so `alice@example.com` becomes `alice%40example.com` and a space `%20`.
    /// - Throws: `OTPError.colonInLabel` if issuer or account contains `:` (the Key URI format forbids it,
    ///   and apps that decode before splitting would mis-read it), `.emptyLabel` if either is empty.
    public static func totp(
        secret: [UInt8],
        issuer: String,
        account: String,
        algorithm: OTPAlgorithm = .sha1,
        digits: Int = 6,
        period: Int = 30
    ) throws(OTPError) -> String {
        guard !issuer.isEmpty, !account.isEmpty else { throw .emptyLabel }
        guard !issuer.contains(":"), !account.contains(":") else { throw .colonInLabel }
        let label = percentEncode(issuer) + ":" + percentEncode(account)
        let query = [
            "secret=" + Base32.encode(secret),
            "issuer=" + percentEncode(issuer),
            "algorithm=" + algorithm.rawValue,
            "digits=\(digits)",
            "period=\(period)",
        ].joined(separator: "&")
        return "otpauth://totp/" + label + "?" + query
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters, which is safe in both path and query.
    static func percentEncode(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += "%" + hexDigits[Int(byte >> 4)] + hexDigits[Int(byte & 0x0f)]
            }
        }
        return encoded
    }

    private static let hexDigits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
}
