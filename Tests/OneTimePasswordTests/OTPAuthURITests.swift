import ExternalTools
import Foundation
import Testing
@testable import OneTimePassword

@Suite("otpauth:// URI")
struct OTPAuthURITests {
    @Test("exact format, with the account percent-encoded and the label colon literal")
    func format() throws {
        let secret = Array("12345678901234567890".utf8)
        let uri = try OTPAuthURI.totp(secret: secret, issuer: "Selfie", account: "alice@example.com")
        #expect(uri == "otpauth://totp/Selfie:alice%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Selfie&algorithm=SHA1&digits=6&period=30")
    }

    @Test("spaces, reserved characters and non-ASCII are percent-encoded in label and issuer")
    func encoding() throws {
        let uri = try OTPAuthURI.totp(secret: Array(repeating: 0, count: 20), issuer: "My Selfie & Co", account: "zoë+test/1", algorithm: .sha256, digits: 8, period: 60)
        #expect(uri.hasPrefix("otpauth://totp/My%20Selfie%20%26%20Co:zo%C3%AB%2Btest%2F1?"))
        #expect(uri.hasSuffix("&issuer=My%20Selfie%20%26%20Co&algorithm=SHA256&digits=8&period=60"))
        // Foundation's URL parser reads it back to the original values.
        let components = try #require(URLComponents(string: uri))
        #expect(components.scheme == "otpauth" && components.host == "totp")
        #expect(components.path == "/My Selfie & Co:zoë+test/1")
        #expect(components.queryItems?.first { $0.name == "issuer" }?.value == "My Selfie & Co")
    }

    @Test("TOTP.provisioningURI carries its own parameters")
    func fromTOTP() throws {
        let secret = TOTP.generateSecret()
        let totp = try TOTP(secret: secret, algorithm: .sha512, digits: 7, period: 45)
        let uri = try totp.provisioningURI(issuer: "Selfie", account: "bob")
        #expect(uri == "otpauth://totp/Selfie:bob?secret=\(Base32.encode(secret))&issuer=Selfie&algorithm=SHA512&digits=7&period=45")
    }

    @Test("refuses a colon or an empty issuer/account")
    func refusals() {
        #expect(throws: OTPError.colonInLabel) { try OTPAuthURI.totp(secret: [1], issuer: "A:B", account: "bob") }
        #expect(throws: OTPError.colonInLabel) { try OTPAuthURI.totp(secret: [1], issuer: "Selfie", account: "b:ob") }
        #expect(throws: OTPError.emptyLabel) { try OTPAuthURI.totp(secret: [1], issuer: "", account: "bob") }
    }

    @Test("an independent implementation (Python stdlib: urllib, base64, hmac) reads the URI and computes the same codes")
    func pythonPeer() async throws {
        let secret = TOTP.generateSecret()
        let times: [Int] = [59, 1_700_000_000, 2_000_000_000]
        for algorithm in OTPAlgorithm.allCases {
            let totp = try TOTP(secret: secret, algorithm: algorithm, digits: 8)
            let uri = try totp.provisioningURI(issuer: "Selfie Test", account: "carol@example.com")
            let run = try await ExternalTool.run(["python3", "-c", Self.pythonTOTP, uri] + times.map(String.init))
            let output = String(decoding: run.stdout, as: UTF8.self)
            let expected = times.map { totp.code(at: Date(timeIntervalSince1970: TimeInterval($0))) }
            #expect(output.split(separator: "\n").map(String.init) == ["Selfie Test", "carol@example.com"] + expected)
        }
    }

    /// Written from RFC 6238/4226 with only the Python standard library.
    static let pythonTOTP = """
    import sys, base64, hmac, hashlib, struct, urllib.parse
    u = urllib.parse.urlparse(sys.argv[1])
    assert u.scheme == "otpauth" and u.netloc == "totp"
    issuer, account = urllib.parse.unquote(u.path[1:]).split(":")
    q = dict(urllib.parse.parse_qsl(u.query))
    assert q["issuer"] == issuer
    s = q["secret"]; key = base64.b32decode(s + "=" * (-len(s) % 8))
    digest = {"SHA1": hashlib.sha1, "SHA256": hashlib.sha256, "SHA512": hashlib.sha512}[q["algorithm"]]
    digits, period = int(q["digits"]), int(q["period"])
    print(issuer); print(account)
    for t in sys.argv[2:]:
        mac = hmac.new(key, struct.pack(">Q", int(t) // period), digest).digest()
        o = mac[-1] & 15
        n = struct.unpack(">I", mac[o:o + 4])[0] & 0x7fffffff
        print(str(n % 10 ** digits).zfill(digits))
    """
}
