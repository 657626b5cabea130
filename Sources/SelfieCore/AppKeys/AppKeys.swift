import Crypto
import Foundation

/// An app-level key (the railsauth API's `API_AUTH_NAME` / `API_AUTH_PASSWORD`): HTTP Basic credentials for
/// signing up and in, and — through the SHA-256 of its password — the AESCrypt key of the
/// passwords that app sends. Only that digest is kept, never the password.
public struct AppKey: Sendable {
    public let name: String
    let passwordDigest: [UInt8]

    public init(name: String, password: String) {
        self.name = name
        self.passwordDigest = Array(SHA256.hash(data: Data(password.utf8)))
    }

    init(name: String, passwordDigest: [UInt8]) {
        self.name = name
        self.passwordDigest = passwordDigest
    }

    /// The key AESCrypt passwords from this app are encrypted with.
    public var encryptionKey: SymmetricKey { SymmetricKey(data: passwordDigest) }

    /// Constant-time check of a presented password.
    func accepts(password: String) -> Bool {
        constantTimeEquals(Array(SHA256.hash(data: Data(password.utf8))), passwordDigest)
    }
}
