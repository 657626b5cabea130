import Foundation
import Testing
@testable import OneTimePassword

@Suite("TOTP (RFC 6238)")
struct TOTPTests {
    static let sha1Seed = Array("12345678901234567890".utf8)
    static let sha256Seed = Array("12345678901234567890123456789012".utf8)
    static let sha512Seed = Array("1234567890123456789012345678901234567890123456789012345678901234".utf8)

    /// RFC 6238 Appendix B: (Unix time, SHA1, SHA256, SHA512), 8 digits, 30 s.
    static let appendixB: [(TimeInterval, String, String, String)] = [
        (59, "94287082", "46119246", "90693936"),
        (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"),
        (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"),
        (20_000_000_000, "65353130", "77737706", "47863826"),
    ]

    @Test("Appendix B vectors for SHA1, SHA256 and SHA512")
    func appendixBVectors() throws {
        let sha1 = try TOTP(secret: Self.sha1Seed, algorithm: .sha1, digits: 8)
        let sha256 = try TOTP(secret: Self.sha256Seed, algorithm: .sha256, digits: 8)
        let sha512 = try TOTP(secret: Self.sha512Seed, algorithm: .sha512, digits: 8)
        for (time, code1, code256, code512) in Self.appendixB {
            let date = Date(timeIntervalSince1970: time)
            #expect(sha1.code(at: date) == code1, "SHA1 at \(time)")
            #expect(sha256.code(at: date) == code256, "SHA256 at \(time)")
            #expect(sha512.code(at: date) == code512, "SHA512 at \(time)")
            // The same codes are accepted back, at the step they were made for.
            #expect(sha1.verify(code1, at: date, window: 0) == sha1.timeStep(at: date))
        }
    }

    @Test("Appendix B time steps (T in hex)")
    func timeSteps() throws {
        let totp = try TOTP(secret: Self.sha1Seed)
        #expect(totp.timeStep(at: Date(timeIntervalSince1970: 59)) == 0x1)
        #expect(totp.timeStep(at: Date(timeIntervalSince1970: 1_111_111_109)) == 0x23523EC)
        #expect(totp.timeStep(at: Date(timeIntervalSince1970: 20_000_000_000)) == 0x27BC86AA)
    }

    @Test("defaults are SHA1, 6 digits, 30 s")
    func defaults() throws {
        let totp = try TOTP(secret: Self.sha1Seed)
        #expect(totp.algorithm == .sha1 && totp.digits == 6 && totp.period == 30)
        // 6-digit code = last 6 digits of the 8-digit Appendix B one (same truncated number).
        #expect(totp.code(at: Date(timeIntervalSince1970: 59)) == "287082")
    }

    @Test("drift: codes one step early or late match and report their own step; two steps off do not")
    func drift() throws {
        let totp = try TOTP(secret: TOTP.generateSecret())
        let now = Date(timeIntervalSince1970: 1_700_000_015)
        let step = totp.timeStep(at: now)
        #expect(totp.verify(totp.code(timeStep: step), at: now) == step)
        #expect(totp.verify(totp.code(timeStep: step - 1), at: now) == step - 1)
        #expect(totp.verify(totp.code(timeStep: step + 1), at: now) == step + 1)
        let twoOff = [totp.code(timeStep: step - 2), totp.code(timeStep: step + 2)]
        for code in twoOff where ![step - 1, step, step + 1].map(totp.code(timeStep:)).contains(code) {
            #expect(totp.verify(code, at: now) == nil)
        }
        // A wider window accepts them.
        #expect(totp.verify(totp.code(timeStep: step - 2), at: now, window: 2) == step - 2)
        // Window 0 means the current step only.
        let previous = totp.code(timeStep: step - 1)
        if previous != totp.code(timeStep: step) {
            #expect(totp.verify(previous, at: now, window: 0) == nil)
        }
    }

    @Test("replay: a code at or before the last used step is refused; a later one is accepted")
    func replay() throws {
        let totp = try TOTP(secret: TOTP.generateSecret())
        let now = Date(timeIntervalSince1970: 1_700_000_015)
        let code = totp.code(at: now)
        let used = try #require(totp.verify(code, at: now, lastUsedStep: nil))
        #expect(totp.verify(code, at: now, lastUsedStep: used) == nil)
        // Ten seconds later, still the same step: still refused.
        #expect(totp.verify(code, at: now.addingTimeInterval(10), lastUsedStep: used) == nil)
        // An older code from the drift window is refused too.
        #expect(totp.verify(totp.code(timeStep: used - 1), at: now, lastUsedStep: used) == nil)
        // Next step's code is fresh.
        let next = now.addingTimeInterval(30)
        #expect(totp.verify(totp.code(at: next), at: next, lastUsedStep: used) == used + 1)
    }

    @Test("typed input: spaces ignored; wrong length, letters and wrong codes refused")
    func typedInput() throws {
        let totp = try TOTP(secret: Self.sha1Seed)
        let date = Date(timeIntervalSince1970: 59)
        #expect(totp.verify("287 082", at: date, window: 0) == 1)
        #expect(totp.verify("28708", at: date) == nil)
        #expect(totp.verify("2870822", at: date) == nil)
        #expect(totp.verify("28708a", at: date) == nil)
        #expect(totp.verify("", at: date) == nil)
        #expect(totp.verify("٢٨٧٠٨٢", at: date) == nil) // Arabic-Indic digits are not ASCII digits
        // Near the epoch the window does not underflow.
        #expect(totp.verify(totp.code(timeStep: 0), at: Date(timeIntervalSince1970: 1)) == 0)
    }

    @Test("generated secrets are 20 random bytes")
    func secrets() {
        let secrets = (0..<20).map { _ in TOTP.generateSecret() }
        #expect(secrets.allSatisfy { $0.count == 20 })
        #expect(Set(secrets).count == 20)
    }

    @Test("refuses a non-positive period")
    func badPeriod() {
        #expect(throws: OTPError.invalidPeriod(0)) { try TOTP(secret: Self.sha1Seed, period: 0) }
    }
}
