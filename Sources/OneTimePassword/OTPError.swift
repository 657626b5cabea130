/// Why an OTP generator or URI could not be built.
public enum OTPError: Error, Sendable, Equatable {
    /// The shared secret is shorter than the 16 bytes RFC 4226 §4 requires.
    case secretTooShort(byteCount: Int)
    /// Only 6, 7 or 8 digits are supported (RFC 4226 §5.3).
    case unsupportedDigits(Int)
    /// The TOTP period must be a positive number of seconds.
    case invalidPeriod(Int)
    /// Issuer or account contains a `:`, which the otpauth label uses as its separator.
    case colonInLabel
    /// Issuer or account is empty.
    case emptyLabel
}
