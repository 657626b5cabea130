import Base64URLCoding
import Foundation
import Testing
@testable import WebAuthn

/// Ceremonies recorded from a real browser: Chromium 156's CTAP2 virtual authenticator, driven by
/// Fixtures/chromium_ceremonies.py (selenium) on a page at http://localhost:PORT. Checked-in bytes,
/// re-recordable with `python3 Fixtures/chromium_ceremonies.py Fixtures/chromium-ceremonies.json`.
@Suite("Ceremonies recorded from Chromium")
struct ChromiumFixtureTests {
    struct Record: Decodable {
        struct Registration: Decodable { let clientDataJSON: String; let attestationObject: String }
        struct Assertion: Decodable {
            let credentialId: String; let clientDataJSON: String; let authenticatorData: String
            let signature: String; let userHandle: String?
        }
        let alg: Int64
        let attestation: String
        let origin: String
        let credentialId: String
        let userHandle: String
        let registration: Registration
        let assertion: Assertion
    }

    static func records() throws -> [Record] {
        let data = try Data(contentsOf: fixturesDirectory.appendingPathComponent("chromium-ceremonies.json"))
        return try JSONDecoder().decode([Record].self, from: data)
    }

    static func bytes(_ base64URL: String?) throws -> [UInt8] {
        try #require(base64URL.flatMap(Base64URL.decode))
    }

    static let createChallenge = [UInt8](0..<32)
    static let getChallenge = [UInt8](32..<64)

    @Test("ES256 and RS256 passkeys with attestation \"none\": register, then sign in with user verification")
    func passkeys() throws {
        let records = try Self.records().filter { $0.attestation == "none" }
        #expect(Set(records.map(\.alg)) == [-7, -257])
        for record in records {
            let relyingParty = WebAuthnRelyingParty(id: "localhost", origin: record.origin)
            let response = RegistrationResponse(
                clientDataJSON: try Self.bytes(record.registration.clientDataJSON),
                attestationObject: try Self.bytes(record.registration.attestationObject)
            )
            let credential = try relyingParty.verifyRegistration(response, expectedChallenge: Self.createChallenge, requireUserVerification: true)
            #expect(credential.id == (try Self.bytes(record.credentialId)))
            #expect(credential.algorithm.rawValue == record.alg)
            #expect(credential.attestation == AttestationKind.none)
            #expect(credential.signCount == 1)
            #expect(credential.isUserVerified && !credential.isBackupEligible)
            // Chromium's virtual authenticator keeps its AAGUID even with attestation "none".
            #expect(credential.aaguid == [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8])

            let stored = StoredCredential(id: credential.id, publicKey: credential.publicKey, signCount: credential.signCount, userHandle: try Self.bytes(record.userHandle))
            let assertion = AssertionResponse(
                credentialID: try Self.bytes(record.assertion.credentialId),
                clientDataJSON: try Self.bytes(record.assertion.clientDataJSON),
                authenticatorData: try Self.bytes(record.assertion.authenticatorData),
                signature: try Self.bytes(record.assertion.signature),
                userHandle: try Self.bytes(record.assertion.userHandle)
            )
            let result = try relyingParty.verifyAssertion(assertion, expectedChallenge: Self.getChallenge, credential: stored, requireUserVerification: true, requireUserHandle: true)
            #expect(result.signCount == 2)
            #expect(result.userHandle == stored.userHandle)

            // Replaying it after the counter was stored, or against another origin, fails.
            var afterUse = stored
            afterUse.signCount = result.signCount
            #expect(throws: WebAuthnError.counterWentBack(stored: 2, received: 2)) {
                try relyingParty.verifyAssertion(assertion, expectedChallenge: Self.getChallenge, credential: afterUse, requireUserVerification: true)
            }
            #expect(throws: WebAuthnError.wrongOrigin) {
                try WebAuthnRelyingParty(id: "localhost", origin: "http://localhost:1").verifyAssertion(assertion, expectedChallenge: Self.getChallenge, credential: stored, requireUserVerification: true)
            }
            var tampered = assertion
            tampered.signature[10] ^= 0x20
            #expect(throws: WebAuthnError.badSignature) {
                try relyingParty.verifyAssertion(tampered, expectedChallenge: Self.getChallenge, credential: stored, requireUserVerification: true)
            }
        }
    }

    @Test("attestation \"direct\" gives packed + x5c: refused by default, accepted unverified when configured")
    func fullAttestation() throws {
        let record = try #require(try Self.records().first { $0.attestation == "direct" })
        let response = RegistrationResponse(
            clientDataJSON: try Self.bytes(record.registration.clientDataJSON),
            attestationObject: try Self.bytes(record.registration.attestationObject)
        )
        #expect(throws: WebAuthnError.unsupportedAttestationFormat("packed with certificate")) {
            try WebAuthnRelyingParty(id: "localhost", origin: record.origin)
                .verifyRegistration(response, expectedChallenge: Self.createChallenge, requireUserVerification: true)
        }
        let lenient = WebAuthnRelyingParty(id: "localhost", origin: record.origin, otherAttestation: .acceptUnverified)
        let credential = try lenient.verifyRegistration(response, expectedChallenge: Self.createChallenge, requireUserVerification: true)
        #expect(credential.attestation == .unverified(format: "packed"))
        #expect(credential.algorithm == .es256)
    }
}
