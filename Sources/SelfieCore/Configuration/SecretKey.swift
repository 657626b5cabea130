import Crypto
import Foundation

/// The server's master secret. Sub-keys for each purpose are derived from it with HKDF,
/// so a CSRF token can never be replayed as a URL signature and vice versa.
public struct SecretKey: Sendable {
    private let key: SymmetricKey

    /// Accepts any string of at least 32 bytes (`make run` writes 64 hex characters).
    public init(_ text: String) throws(InvalidValue) {
        guard text.utf8.count >= 32 else {
            throw InvalidValue(reason: "must be at least 32 bytes long (got \(text.utf8.count))")
        }
        self.key = SymmetricKey(data: Data(text.utf8))
    }

    /// A key for one purpose, e.g. `"csrf"`.
    public func derived(for purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key,
            info: Data("selfie.\(purpose)".utf8),
            outputByteCount: 32
        )
    }
}
