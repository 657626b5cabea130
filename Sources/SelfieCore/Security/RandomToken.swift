import Crypto
import Foundation

/// Unguessable tokens for cookies, API tokens and ids, from the system's CSPRNG.
public enum RandomToken {
    /// `byteCount` random bytes as unpadded base64url (32 bytes → 43 characters).
    public static func urlSafe(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64URL.encode(bytes)
    }

    /// SHA-256 of a token: what the database stores instead of the token itself.
    public static func hash(_ token: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(token.utf8)))
    }
}

/// Base64url without padding (RFC 4648 §5), written byte by byte into the string's storage.
/// Signed media URLs and CSRF tokens are made on every page and API answer: going through
/// Foundation's base64 and three `replacingOccurrences` was a sixth of get_photos' CPU.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

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
}

extension Data {
    /// Base64url without padding (RFC 4648 §5), safe in cookies, URLs and paths.
    public func base64URLEncoded() -> String {
        Base64URL.encode(self)
    }

    /// Decodes base64url with or without padding; nil when it is not base64url.
    public init?(base64URLEncoded text: some StringProtocol) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}

/// Compares secrets in time that depends only on their length, not on where they differ.
public func constantTimeEquals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for (a, b) in zip(lhs, rhs) { difference |= a ^ b }
    return difference == 0
}
