import Crypto
import Testing
import _CryptoExtras
@testable import WebAuthn
import WebAuthnTestSupport

@Suite("Authenticator data (WebAuthn L2 §6.1)")
struct AuthenticatorDataTests {
    static let localhostHash = "49960de5880e8c687434170f6476605b8fe4aeb9a28632c7995cf3ba831d9763" // SHA-256("localhost")
    /// COSE_Key for ES256 whose point is the P-256 generator G (RFC 9053 labels, encoded by Python cbor2).
    static let coseG = """
        a5 01 02 03 26 20 01
        21 5820 6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296
        22 5820 4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5
        """
    static let credProtect = "a1 6b 6372656450726f74656374 02" // {"credProtect": 2}

    @Test("registration-style data: flags, counter, AAGUID, credential ID, COSE key, then extensions")
    func fullLayout() throws {
        let bytes = hex(Self.localhostHash + "c5" + "0000002a" + "00112233445566778899aabbccddeeff" + "0004" + "deadbeef" + Self.coseG + Self.credProtect)
        let data = try AuthenticatorData(bytes: bytes)
        #expect(data.rpIDHash == Array(SHA256.hash(data: Array("localhost".utf8))))
        #expect(data.flags == [.userPresent, .userVerified, .attestedCredentialData, .extensionData])
        #expect(data.signCount == 42)
        let attested = try #require(data.attestedCredentialData)
        #expect(attested.aaguid == hex("00112233445566778899aabbccddeeff"))
        #expect(attested.credentialID == hex("deadbeef"))
        #expect(attested.publicKeyBytes == hex(Self.coseG)) // exactly the embedded bytes, found by decoding
        #expect(data.extensions?[textKey: "credProtect"] == .unsigned(2))
        let key = try CredentialPublicKey(cose: attested.publicKey)
        #expect(key.algorithm == .es256)
    }

    @Test("assertion-style data: 37 bytes, backup flags, big-endian counter")
    func assertionLayout() throws {
        let data = try AuthenticatorData(bytes: hex(Self.localhostHash + "1d" + "01020304"))
        #expect(data.flags == [.userPresent, .userVerified, .backupEligible, .backedUp])
        #expect(data.signCount == 0x0102_0304)
        #expect(data.attestedCredentialData == nil && data.extensions == nil)
    }

    @Test("the reserved bits 1 and 5 do not disturb parsing")
    func reservedBits() throws {
        let data = try AuthenticatorData(bytes: hex(Self.localhostHash + "23" + "00000000"))
        #expect(data.flags.contains(.userPresent))
        #expect(!data.flags.contains(.userVerified))
    }

    static let malformed: [(String, String)] = [
        ("shorter than 37 bytes", localhostHash + "01" + "000000"),
        ("bytes after the counter without AT or ED", localhostHash + "01" + "00000000" + "00"),
        ("AT set but no attested data", localhostHash + "41" + "00000000"),
        ("credential ID longer than what follows", localhostHash + "41" + "00000000" + "00112233445566778899aabbccddeeff" + "0010" + "deadbeef"),
        ("AT set but COSE key missing", localhostHash + "41" + "00000000" + "00112233445566778899aabbccddeeff" + "0004" + "deadbeef"),
        ("COSE key truncated", localhostHash + "41" + "00000000" + "00112233445566778899aabbccddeeff" + "0004" + "deadbeef" + "a5010203"),
        ("bytes after the COSE key without ED", localhostHash + "41" + "00000000" + "00112233445566778899aabbccddeeff" + "0004" + "deadbeef" + coseG + "00"),
        ("ED set but no extensions", localhostHash + "81" + "00000000"),
        ("extensions not a map", localhostHash + "81" + "00000000" + "8102"),
        ("bytes after the extensions", localhostHash + "81" + "00000000" + credProtect + "00"),
    ]

    @Test("malformed authenticator data is refused", arguments: malformed)
    func refusals(reason: String, bytes: String) {
        #expect(throws: WebAuthnError.self, "\(reason)") { try AuthenticatorData(bytes: hex(bytes)) }
        do {
            _ = try AuthenticatorData(bytes: hex(bytes))
        } catch {
            guard case .malformed = error else { Issue.record("\(reason): \(error)"); return }
        }
    }
}

@Suite("COSE keys")
struct COSEKeyTests {
    @Test("ES256 with x/y and RS256 with n/e parse; the software authenticator's keys round-trip")
    func parses() throws {
        #expect(try CredentialPublicKey(coseBytes: SoftwareAuthenticator.es256().coseKey.encoded).algorithm == .es256)
        #expect(try CredentialPublicKey(coseBytes: SoftwareAuthenticator.rs256().coseKey.encoded).algorithm == .rs256)
    }

    static let refused: [(String, CBORValue, WebAuthnError)] = [
        ("EdDSA (OKP, alg -8)", cborMap([(.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(6)), (.int(-2), .bytes([UInt8](repeating: 1, count: 32)))]), .unsupportedAlgorithm(-8)),
        ("ES384", cborMap([(.int(1), .int(2)), (.int(3), .int(-35)), (.int(-1), .int(2))]), .unsupportedAlgorithm(-35)),
        ("PS256", cborMap([(.int(1), .int(3)), (.int(3), .int(-37))]), .unsupportedAlgorithm(-37)),
        ("no alg", cborMap([(.int(1), .int(2)), (.int(-1), .int(1))]), .malformed("COSE key has no integer alg")),
        ("not a map", .array([]), .malformed("COSE key is not a map")),
        ("ES256 with RSA kty", cborMap([(.int(1), .int(3)), (.int(3), .int(-7))]), .malformed("ES256 key with kty 3")),
        ("ES256 on P-384", cborMap([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(2))]), .malformed("ES256 key not on curve P-256")),
        ("ES256 with short x", cborMap([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), .bytes([1])), (.int(-3), .bytes([UInt8](repeating: 0, count: 32)))]), .malformed("ES256 key needs 32-byte x and y")),
        ("ES256 point off the curve", cborMap([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), .bytes([UInt8](repeating: 1, count: 32))), (.int(-3), .bytes([UInt8](repeating: 2, count: 32)))]), .malformed("ES256 point is not on P-256")),
        ("RS256 without e", cborMap([(.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes([UInt8](repeating: 0xff, count: 256)))]), .malformed("RS256 key needs n and e")),
        ("RS256 over 4096 bits", cborMap([(.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes([UInt8](repeating: 0xff, count: 513))), (.int(-2), .bytes([1, 0, 1]))]), .malformed("RSA modulus over 4096 bits")),
    ]

    @Test("other algorithms and broken keys are refused", arguments: refused)
    func refusals(name: String, cose: CBORValue, error: WebAuthnError) {
        #expect(throws: error, "\(name)") { try CredentialPublicKey(coseBytes: cose.encoded) }
    }

    @Test("RSA keys under 2048 bits are refused")
    func smallRSA() throws {
        let small = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024)).publicKey.getKeyPrimitives()
        let cose = cborMap([(.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes(Array(small.modulus))), (.int(-2), .bytes(Array(small.publicExponent)))])
        #expect(throws: WebAuthnError.self) { try CredentialPublicKey(coseBytes: cose.encoded) }
    }
}
