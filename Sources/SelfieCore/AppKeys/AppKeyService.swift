import Foundation

/// Every valid app key: the one from the environment and those admins added (not revoked).
public struct AppKeyService: Sendable {
    let environmentKey: AppKey
    let keys: AppKeyRepository

    public init(environmentKey: AppKey, keys: AppKeyRepository) {
        self.environmentKey = environmentKey
        self.keys = keys
    }

    public func key(named name: String) async throws -> AppKey? {
        if constantTimeEquals(Array(name.utf8), Array(environmentKey.name.utf8)) { return environmentKey }
        return try await keys.activeKey(named: name)
    }

    public func recordUse(of key: AppKey) async throws {
        try await keys.recordUse(of: key.name)
    }

    /// The key with this name if `password` is its password, else nil. The password is checked
    /// even for an unknown name, so timing does not tell names apart.
    public func authenticate(name: String, password: String) async throws -> AppKey? {
        let key = try await key(named: name)
        let accepted = (key ?? AppKey(name: "", passwordDigest: Array(repeating: 0, count: 32))).accepts(password: password)
        return accepted ? key : nil
    }
}
