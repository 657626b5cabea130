import Crypto
import Foundation

/// Seals TOTP secrets for storage: AES-GCM under a key derived from `SECRET_KEY`, with the user's
/// id as associated data, so a sealed secret copied onto another account does not open. A
/// database dump alone therefore holds no usable secret.
struct TOTPSecretBox: Sendable {
    private let key: SymmetricKey

    init(secretKey: SecretKey) {
        key = secretKey.derived(for: "totp-secret")
    }

    /// nonce ‖ ciphertext ‖ tag.
    func seal(_ secret: [UInt8], userID: Int64) throws -> [UInt8] {
        let box = try AES.GCM.seal(secret, using: key, authenticating: Self.associatedData(userID))
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return Array(combined)
    }

    /// Throws when the bytes were not sealed by this key for this user (a changed `SECRET_KEY`).
    func open(_ sealed: [UInt8], userID: Int64) throws -> [UInt8] {
        let box = try AES.GCM.SealedBox(combined: sealed)
        return Array(try AES.GCM.open(box, using: key, authenticating: Self.associatedData(userID)))
    }

    private static func associatedData(_ userID: Int64) -> Data { Data("user:\(userID)".utf8) }
}
