import Testing
@testable import OneTimePassword

@Suite("HOTP (RFC 4226 Appendix D)")
struct HOTPTests {
    static let secret = Array("12345678901234567890".utf8)
    static let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]

    @Test("counters 0–9 give the Appendix D values")
    func appendixD() throws {
        let hotp = try HOTP(secret: Self.secret)
        for (counter, code) in Self.expected.enumerated() {
            #expect(hotp.code(counter: UInt64(counter)) == code, "counter \(counter)")
        }
    }

    @Test("refuses short secrets and unsupported digit counts")
    func refusals() {
        #expect(throws: OTPError.secretTooShort(byteCount: 10)) { try HOTP(secret: Array(repeating: 1, count: 10)) }
        #expect(throws: OTPError.unsupportedDigits(5)) { try HOTP(secret: Self.secret, digits: 5) }
        #expect(throws: OTPError.unsupportedDigits(9)) { try HOTP(secret: Self.secret, digits: 9) }
    }
}
