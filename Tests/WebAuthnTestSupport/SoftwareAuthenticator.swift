import Base64URLCoding
import Crypto
import _CryptoExtras
import Foundation
import WebAuthn

/// A software authenticator plus the browser half of the ceremonies, written from the spec:
/// builds clientDataJSON, authenticator data and a "none" attestation object, and signs assertions.
/// Every knob a test needs to produce a bad response *that is still correctly signed* is a parameter.
public struct SoftwareAuthenticator {
    public enum Key {
        case es256(P256.Signing.PrivateKey)
        case rs256(_RSA.Signing.PrivateKey)
    }

    public static let flagUP: UInt8 = 0x01, flagUV: UInt8 = 0x04, flagBE: UInt8 = 0x08, flagBS: UInt8 = 0x10
    public static let flagAT: UInt8 = 0x40, flagED: UInt8 = 0x80

    /// One 2048-bit RSA key for all tests: generating it is the slowest thing here.
    public static let sharedRSAKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    public let key: Key
    public let credentialID: [UInt8]
    public let userHandle: [UInt8]
    public var signCount: UInt32

    /// - Parameter userHandle: the `user.id` of the creation options (random when a test has none).
    public init(key: Key, signCount: UInt32 = 0, userHandle: [UInt8]? = nil) {
        self.key = key
        self.credentialID = (0..<16).map { _ in UInt8.random(in: 0 ... 255) }
        self.userHandle = userHandle ?? (0..<16).map { _ in UInt8.random(in: 0 ... 255) }
        self.signCount = signCount
    }

    public static func es256() -> SoftwareAuthenticator { SoftwareAuthenticator(key: .es256(P256.Signing.PrivateKey())) }
    public static func rs256() -> SoftwareAuthenticator { SoftwareAuthenticator(key: .rs256(sharedRSAKey)) }

    public var coseKey: CBORValue {
        switch key {
        case .es256(let privateKey):
            let point = Array(privateKey.publicKey.x963Representation) // 0x04 || x || y
            return cborMap([
                (.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
                (.int(-2), .bytes(Array(point[1...32]))), (.int(-3), .bytes(Array(point[33...64]))),
            ])
        case .rs256(let privateKey):
            let primitives = try! privateKey.publicKey.getKeyPrimitives()
            return cborMap([
                (.int(1), .int(3)), (.int(3), .int(-257)),
                (.int(-1), .bytes(Array(primitives.modulus))), (.int(-2), .bytes(Array(primitives.publicExponent))),
            ])
        }
    }

    public func sign(_ data: [UInt8]) -> [UInt8] {
        switch key {
        case .es256(let privateKey):
            return Array(try! privateKey.signature(for: data).derRepresentation)
        case .rs256(let privateKey):
            return Array(try! privateKey.signature(for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }

    public static func clientDataJSON(type: String, challenge: [UInt8], origin: String, crossOrigin: Bool = false) -> [UInt8] {
        // Member order and formatting as Chromium writes it.
        Array(#"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(origin)","crossOrigin":\#(crossOrigin)}"#.utf8)
    }

    public static func authenticatorData(rpID: String, flags: UInt8, signCount: UInt32, attested: [UInt8] = [], extensions: [UInt8] = []) -> [UInt8] {
        Array(SHA256.hash(data: Array(rpID.utf8))) + [flags] + withUnsafeBytes(of: signCount.bigEndian, Array.init) + attested + extensions
    }

    /// What `navigator.credentials.create()` would return, with "none" attestation.
    public func register(
        rpID: String = "localhost",
        origin: String = "http://localhost:8080",
        challenge: [UInt8],
        flags: UInt8 = flagUP | flagUV | flagAT,
        type: String = "webauthn.create",
        format: String = "none",
        statement: CBORValue = cborMap([])
    ) -> RegistrationResponse {
        let attested = flags & Self.flagAT == 0 ? [] :
            [UInt8](repeating: 0, count: 16) // AAGUID: zero, as with attestation "none"
            + withUnsafeBytes(of: UInt16(credentialID.count).bigEndian, Array.init)
            + credentialID
            + coseKey.encoded
        let authData = Self.authenticatorData(rpID: rpID, flags: flags, signCount: signCount, attested: attested)
        let attestationObject = cborMap([
            (.text("fmt"), .text(format)), (.text("attStmt"), statement), (.text("authData"), .bytes(authData)),
        ])
        return RegistrationResponse(
            clientDataJSON: Self.clientDataJSON(type: type, challenge: challenge, origin: origin),
            attestationObject: attestationObject.encoded
        )
    }

    /// What `navigator.credentials.get()` would return; bumps the counter like a real authenticator
    /// unless `counting` is false (a synced passkey that always reports 0).
    public mutating func assert(
        rpID: String = "localhost",
        origin: String = "http://localhost:8080",
        challenge: [UInt8],
        flags: UInt8 = flagUP | flagUV,
        type: String = "webauthn.get",
        crossOrigin: Bool = false,
        counting: Bool = true
    ) -> AssertionResponse {
        if counting { signCount += 1 }
        let authData = Self.authenticatorData(rpID: rpID, flags: flags, signCount: signCount)
        let clientData = Self.clientDataJSON(type: type, challenge: challenge, origin: origin, crossOrigin: crossOrigin)
        return AssertionResponse(
            credentialID: credentialID,
            clientDataJSON: clientData,
            authenticatorData: authData,
            signature: sign(authData + Array(SHA256.hash(data: clientData))),
            userHandle: userHandle
        )
    }
}
