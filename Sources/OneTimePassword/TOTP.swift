import Foundation

/// RFC 6238 time-based one-time passwords (defaults: HMAC-SHA1, 30 s steps, 6 digits, T0 = Unix epoch).
///
/// Replay protection is the caller's job: `verify` returns the time step the code matched;
/// store it with the user after a successful login and pass it back as `lastUsedStep` next
/// time, so the same code (or an older one) cannot be used twice within the drift window.
/// All calls are cheap (a few HMACs) and never block.
public struct TOTP: Sendable {
    public let period: Int
    private let hotp: HOTP
    private let secret: [UInt8]

    public var algorithm: OTPAlgorithm { hotp.algorithm }
    public var digits: Int { hotp.digits }

    /// - Throws: `OTPError.secretTooShort` under 16 bytes, `.unsupportedDigits` outside 6...8, `.invalidPeriod` if ≤ 0.
    public init(secret: [UInt8], algorithm: OTPAlgorithm = .sha1, digits: Int = 6, period: Int = 30) throws(OTPError) {
        guard period > 0 else { throw .invalidPeriod(period) }
        self.hotp = try HOTP(secret: secret, algorithm: algorithm, digits: digits)
        self.period = period
        self.secret = secret
    }

    /// A fresh random 20-byte (160-bit, the RFC 4226 recommendation) shared secret.
    public static func generateSecret() -> [UInt8] {
        // SystemRandomNumberGenerator is documented as cryptographically secure (getrandom on Linux).
        var generator = SystemRandomNumberGenerator()
        return (0..<20).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The RFC 6238 time step `floor(unixTime / period)`; times before 1970 count as step 0.
    public func timeStep(at date: Date) -> UInt64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds > 0 else { return 0 }
        return UInt64(seconds) / UInt64(period)
    }

    /// The code shown by an authenticator app at `date`.
    public func code(at date: Date) -> String {
        hotp.code(counter: timeStep(at: date))
    }

    /// The code for one time step.
    public func code(timeStep: UInt64) -> String {
        hotp.code(counter: timeStep)
    }

    /// Checks a typed code against the steps `current - window ... current + window`.
    ///
    /// - Parameters:
    ///   - code: what the user typed; spaces are ignored, anything but `digits` ASCII digits fails.
    ///   - date: now.
    ///   - window: clock drift allowed, in steps (1 = ±30 s with the default period); clamped to 0...10.
    ///   - lastUsedStep: the step stored after this user's last successful TOTP login, or `nil`;
    ///     steps up to and including it are refused, which is what stops a replay.
    /// - Returns: the matched time step (store it as the new `lastUsedStep`), or `nil`.
    ///   Every step of the window is computed and compared in constant time whatever matches.
    public func verify(_ code: String, at date: Date, window: Int = 1, lastUsedStep: UInt64? = nil) -> UInt64? {
        let typed = Array(code.utf8.filter { $0 != UInt8(ascii: " ") })
        guard typed.count == digits, typed.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        let window = UInt64(min(max(window, 0), 10))
        let current = timeStep(at: date)
        let first = current >= window ? current - window : 0
        let last = current.addingReportingOverflow(window).overflow ? UInt64.max : current + window

        var matched: UInt64?
        for step in first...last {
            let isMatch = constantTimeEquals(hotp.codeBytes(counter: step), typed)
            let isFresh = lastUsedStep.map { step > $0 } ?? true
            // Keep the earliest fresh match, so a (one in a million) collision with a later step
            // does not burn more future steps than needed.
            if isMatch, isFresh, matched == nil {
                matched = step
            }
        }
        return matched
    }

    /// The `otpauth://totp/…` URI that authenticator apps read from a QR code.
    /// - Throws: `OTPError.colonInLabel` / `.emptyLabel` for an unusable issuer or account.
    public func provisioningURI(issuer: String, account: String) throws(OTPError) -> String {
        try OTPAuthURI.totp(secret: secret, issuer: issuer, account: account, algorithm: algorithm, digits: digits, period: period)
    }
}
