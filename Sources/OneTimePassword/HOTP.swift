import Crypto

/// RFC 4226 HMAC-based one-time passwords: the counter-driven core that TOTP is built on.
public struct HOTP: Sendable {
    public let algorithm: OTPAlgorithm
    public let digits: Int
    private let key: SymmetricKey

    /// - Throws: `OTPError.secretTooShort` under 16 bytes, `OTPError.unsupportedDigits` outside 6...8.
    public init(secret: [UInt8], algorithm: OTPAlgorithm = .sha1, digits: Int = 6) throws(OTPError) {
        guard secret.count >= 16 else { throw .secretTooShort(byteCount: secret.count) }
        guard (6...8).contains(digits) else { throw .unsupportedDigits(digits) }
        self.key = SymmetricKey(data: secret)
        self.algorithm = algorithm
        self.digits = digits
    }

    /// The code for one counter value, zero-padded to `digits` characters.
    public func code(counter: UInt64) -> String {
        String(decoding: codeBytes(counter: counter), as: UTF8.self)
    }

    /// The code as ASCII digits: the form compared in constant time.
    func codeBytes(counter: UInt64) -> [UInt8] {
        let message = withUnsafeBytes(of: counter.bigEndian) { Array($0) }
        let mac = algorithm.authenticationCode(key: key, message: message)
        // Dynamic truncation (RFC 4226 §5.3): the low nibble of the last byte picks 4 bytes,
        // whose top bit is masked so the number is the same signed or unsigned.
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary = (UInt32(mac[offset] & 0x7f) << 24)
            | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var value = binary % Self.powersOfTen[digits]
        var ascii = [UInt8](repeating: UInt8(ascii: "0"), count: digits)
        for index in stride(from: digits - 1, through: 0, by: -1) {
            ascii[index] = UInt8(ascii: "0") + UInt8(value % 10)
            value /= 10
        }
        return ascii
    }

    private static let powersOfTen: [UInt32] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]
}
