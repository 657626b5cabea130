import Crypto
import Foundation
import _CryptoExtras

/// The password encryption of the iOS AESCrypt class and the Ruby aescrypt gem, which the railsauth
/// app uses for every password it sends: AES-256-CBC, key = SHA-256 of the app key's password,
/// an all-zero IV, PKCS#7 padding, base64.
enum AESCrypt {
    struct Undecryptable: Error {}

    private static let zeroIV = try! AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: 16))

    /// The AES key for an app key's password.
    static func key(forPassword password: String) -> SymmetricKey {
        SymmetricKey(data: SHA256.hash(data: Data(password.utf8)))
    }

    static func encrypt(_ plaintext: String, key: SymmetricKey) throws -> String {
        try AES._CBC.encrypt(Data(plaintext.utf8), using: key, iv: zeroIV).base64EncodedString()
    }

    /// Decrypts a base64 ciphertext. Line breaks (Ruby's `Base64.encode64`) and spaces (a `+`
    /// that a query string turned into a space) are tolerated; bad base64, a wrong length, bad
    /// padding (the usual sign of a wrong key) or text that is not UTF-8 throw `Undecryptable`.
    static func decrypt(_ base64: String, key: SymmetricKey) throws(Undecryptable) -> String {
        let cleaned = base64.replacingOccurrences(of: " ", with: "+")
            .filter { !$0.isNewline && $0 != "\t" }
        guard let ciphertext = Data(base64Encoded: cleaned), !ciphertext.isEmpty, ciphertext.count % 16 == 0 else {
            throw Undecryptable()
        }
        guard let plaintext = try? AES._CBC.decrypt(ciphertext, using: key, iv: zeroIV),
            let text = String(data: plaintext, encoding: .utf8)
        else { throw Undecryptable() }
        return text
    }
}
