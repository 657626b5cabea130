import ExternalTools
import Foundation
import HummingbirdOTP
import OneTimePassword
import Testing

/// Why Selfie keeps its own `OneTimePassword` instead of `HummingbirdOTP` (hummingbird-auth 2.5.0,
/// already a dependency): HummingbirdOTP takes the secret as a `String` and keys the HMAC with its
/// UTF-8 bytes, so the random binary secret RFC 4226 §4 asks for (160 bits from a CSPRNG, which
/// is what authenticator apps get in the `otpauth://` URI) cannot be given to it: the bytes that
/// are not valid UTF-8 are replaced, and its codes are not the app's. It also has no verification
/// window, replay check or recovery codes. The day it takes bytes, this test says so.
@Suite("HummingbirdOTP beside OneTimePassword")
struct HummingbirdOTPComparisonTests {
    @Test("with a random binary secret HummingbirdOTP's codes are not the authenticator app's; ours match an independent implementation")
    func binarySecret() async throws {
        // A secret as TOTP.generateSecret() makes them, with bytes that are not UTF-8 for certain.
        var secret = TOTP.generateSecret()
        secret[0] = 0xFF
        secret[1] = 0x80
        let ours = try OneTimePassword.TOTP(secret: secret)
        let uri = try ours.provisioningURI(issuer: "Selfie Test", account: "erin@example.com")
        let times = [59, 1_700_000_000, 2_000_000_000]
        // The Python reference (stdlib only) decodes the Base32 secret from the URI, as an app does.
        let run = try await ExternalTool.run(["python3", "-c", OTPAuthURITests.pythonTOTP, uri] + times.map(String.init))
        let reference = Array(String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map(String.init).dropFirst(2))
        let oursCodes = times.map { ours.code(at: Date(timeIntervalSince1970: TimeInterval($0))) }
        #expect(oursCodes == reference, "ours are the app's codes")

        let theirs = HummingbirdOTP.TOTP(secret: String(decoding: secret, as: UTF8.self))
        let theirCodes = times.map { String(format: "%06d", theirs.compute(date: Date(timeIntervalSince1970: TimeInterval($0)))) }
        #expect(theirCodes != oursCodes, "HummingbirdOTP cannot be keyed with the binary secret")

        // With an ASCII secret (RFC 6238's test seed) the two agree: the difference is the key alone.
        let seed = Array("12345678901234567890".utf8)
        let asciiOurs = try OneTimePassword.TOTP(secret: seed)
        let asciiTheirs = HummingbirdOTP.TOTP(secret: "12345678901234567890")
        for time in times {
            let date = Date(timeIntervalSince1970: TimeInterval(time))
            #expect(asciiOurs.code(at: date) == String(format: "%06d", asciiTheirs.compute(date: date)))
        }
    }
}
