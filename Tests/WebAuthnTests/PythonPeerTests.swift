import Base64URLCoding
import ExternalTools
import Foundation
import Testing
@testable import WebAuthn

/// Ceremonies produced by an independent implementation: Fixtures/python_authenticator.py
/// (Python, cbor2 + cryptography), so the parser is not only checked against our own encoder.
@Suite("Ceremonies from the Python authenticator")
struct PythonPeerTests {
    struct Ceremony: Decodable {
        struct Registration: Decodable { let clientDataJSON: String; let attestationObject: String }
        struct Assertion: Decodable { let clientDataJSON: String; let authenticatorData: String; let signature: String; let userHandle: String }
        let credentialId: String
        let userHandle: String
        let coseKey: String
        let aaguid: String
        let registration: Registration
        let assertion: Assertion
    }

    static func bytes(_ base64URL: String) throws -> [UInt8] {
        try #require(Base64URL.decode(base64URL))
    }

    /// Runs both ceremonies of one Python output through the verifier and checks every reported field.
    static func verify(_ output: Data, relyingParty: WebAuthnRelyingParty, createChallenge: [UInt8], getChallenge: [UInt8]) throws {
        let ceremonies = try JSONDecoder().decode([String: Ceremony].self, from: output)
        #expect(Set(ceremonies.keys) == ["es256", "rs256"])
        for (name, ceremony) in ceremonies.sorted(by: { $0.key < $1.key }) {
            let registration = try relyingParty.verifyRegistration(
                RegistrationResponse(clientDataJSON: bytes(ceremony.registration.clientDataJSON), attestationObject: bytes(ceremony.registration.attestationObject)),
                expectedChallenge: createChallenge, requireUserVerification: false
            )
            #expect(registration.id == (try bytes(ceremony.credentialId)), "\(name)")
            #expect(registration.publicKey == (try bytes(ceremony.coseKey)), "\(name)")
            #expect(registration.aaguid == (try bytes(ceremony.aaguid)), "\(name)")
            if name == "es256" {
                #expect(registration.algorithm == .es256)
                #expect(registration.attestation == .selfAttestation)
                #expect(registration.signCount == 5)
                #expect(registration.isUserVerified && registration.isBackupEligible && registration.isBackedUp)
            } else {
                #expect(registration.algorithm == .rs256)
                #expect(registration.attestation == AttestationKind.none)
                #expect(registration.signCount == 0)
                #expect(!registration.isUserVerified && !registration.isBackupEligible && !registration.isBackedUp)
            }

            let stored = StoredCredential(id: registration.id, publicKey: registration.publicKey, signCount: registration.signCount, userHandle: try bytes(ceremony.userHandle))
            let response = AssertionResponse(
                credentialID: registration.id,
                clientDataJSON: try bytes(ceremony.assertion.clientDataJSON),
                authenticatorData: try bytes(ceremony.assertion.authenticatorData),
                signature: try bytes(ceremony.assertion.signature),
                userHandle: try bytes(ceremony.assertion.userHandle)
            )
            let assertion = try relyingParty.verifyAssertion(response, expectedChallenge: getChallenge, credential: stored, requireUserVerification: name == "es256", requireUserHandle: true)
            #expect(assertion.signCount == (name == "es256" ? 6 : 0))
            #expect(assertion.userHandle == stored.userHandle)

            // The same independent bytes, replayed or tampered with, are refused.
            var replayed = stored
            replayed.signCount = assertion.signCount
            if name == "es256" {
                #expect(throws: WebAuthnError.counterWentBack(stored: 6, received: 6)) {
                    try relyingParty.verifyAssertion(response, expectedChallenge: getChallenge, credential: replayed, requireUserVerification: true)
                }
            }
            var tampered = response
            tampered.authenticatorData[32] ^= 0x04 // toggle UV
            #expect(throws: WebAuthnError.badSignature) {
                try relyingParty.verifyAssertion(tampered, expectedChallenge: getChallenge, credential: stored, requireUserVerification: false)
            }
            #expect(throws: WebAuthnError.wrongChallenge) {
                try relyingParty.verifyAssertion(response, expectedChallenge: createChallenge, credential: stored, requireUserVerification: false)
            }
            let otherOrigin = WebAuthnRelyingParty(id: relyingParty.id, origin: "https://localhost")
            #expect(throws: WebAuthnError.wrongOrigin) {
                try otherOrigin.verifyAssertion(response, expectedChallenge: getChallenge, credential: stored, requireUserVerification: false)
            }
            let otherRP = WebAuthnRelyingParty(id: "example.com", origin: relyingParty.origin)
            #expect(throws: WebAuthnError.wrongRelyingParty) {
                try otherRP.verifyAssertion(response, expectedChallenge: getChallenge, credential: stored, requireUserVerification: false)
            }
        }
    }

    @Test("fresh ceremonies: the script runs now with keys, challenges and an origin chosen by this test")
    func liveScript() async throws {
        let port = Int.random(in: 1024...65535) // only part of the origin string; nothing listens
        let relyingParty = WebAuthnRelyingParty(id: "localhost", origin: "http://localhost:\(port)")
        let create = WebAuthnChallenge.generate()
        let get = WebAuthnChallenge.generate()
        let output = try await ExternalTool.run([
            "python3", fixturesDirectory.appendingPathComponent("python_authenticator.py").path,
            "localhost", relyingParty.origin, create.base64URL, get.base64URL,
        ]).stdout
        try Self.verify(output, relyingParty: relyingParty, createChallenge: create.bytes, getChallenge: get.bytes)
    }

    @Test("checked-in ceremonies: Fixtures/python-ceremonies.json, made once by the same script")
    func checkedInFixture() throws {
        // Produced by: python_authenticator.py localhost http://localhost:8080 <bytes 0…31> <bytes 32…63>
        let output = try Data(contentsOf: fixturesDirectory.appendingPathComponent("python-ceremonies.json"))
        try Self.verify(
            output,
            relyingParty: WebAuthnRelyingParty(id: "localhost", origin: "http://localhost:8080"),
            createChallenge: Array(0..<32), getChallenge: Array(32..<64)
        )
    }
}
