import Crypto

/// The HMAC hash behind an OTP; SHA-1 is what nearly every authenticator app uses by default.
public enum OTPAlgorithm: String, Sendable, Hashable, CaseIterable {
    case sha1 = "SHA1"
    case sha256 = "SHA256"
    case sha512 = "SHA512"

    func authenticationCode(key: SymmetricKey, message: [UInt8]) -> [UInt8] {
        switch self {
        case .sha1: return Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: key))
        case .sha256: return Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
        case .sha512: return Array(HMAC<SHA512>.authenticationCode(for: message, using: key))
        }
    }
}
