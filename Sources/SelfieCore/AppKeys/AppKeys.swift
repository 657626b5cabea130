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

/// Where app keys come from. The one from the environment always; the admin pages may add more.
public protocol AppKeyStore: Sendable {
    /// The key with this name, if it exists and is not revoked.
    func key(named name: String) async throws -> AppKey?
    /// Notes that the key was just used (shown on the admin page).
    func recordUse(of key: AppKey) async throws
}

extension AppKeyStore {
    /// The key with this name if `password` is its password, else nil. The password is checked
    /// even for an unknown name, so timing does not tell names apart.
    public func authenticate(name: String, password: String) async throws -> AppKey? {
        let key = try await key(named: name)
        let accepted = (key ?? AppKey(name: "", passwordDigest: Array(repeating: 0, count: 32))).accepts(password: password)
        return accepted ? key : nil
    }
}
