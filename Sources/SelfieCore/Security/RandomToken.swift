import Base64URLCoding
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

/// Compares secrets in time that depends only on their length, not on where they differ.
public func constantTimeEquals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for (a, b) in zip(lhs, rhs) { difference |= a ^ b }
    return difference == 0
}
