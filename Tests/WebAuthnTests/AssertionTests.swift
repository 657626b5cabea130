import Crypto
import Testing
@testable import WebAuthn
import WebAuthnTestSupport

@Suite("Assertion ceremony (§7.2) with the software authenticator")
struct AssertionTests {
    let relyingParty = WebAuthnRelyingParty(id: "localhost", origin: "http://localhost:8080")

    /// Registers through the real verifier and returns what the server would have stored.
    func enroll(_ authenticator: SoftwareAuthenticator) throws -> StoredCredential {
        let challenge = WebAuthnChallenge.generate().bytes
        let credential = try relyingParty.verifyRegistration(authenticator.register(challenge: challenge), expectedChallenge: challenge, requireUserVerification: true)
        return StoredCredential(id: credential.id, publicKey: credential.publicKey, signCount: credential.signCount, userHandle: authenticator.userHandle)
    }

    @Test("ES256 and RS256: register, sign in twice, counter stored and increasing", arguments: ["es256", "rs256"])
    func signsIn(algorithm: String) throws {
        var authenticator = algorithm == "es256" ? SoftwareAuthenticator.es256() : SoftwareAuthenticator.rs256()
        var stored = try enroll(authenticator)
        for expectedCount: UInt32 in [1, 2] {
            let challenge = WebAuthnChallenge.generate().bytes
            let result = try relyingParty.verifyAssertion(
                authenticator.assert(challenge: challenge), expectedChallenge: challenge,
                credential: stored, requireUserVerification: true, requireUserHandle: true
            )
            #expect(result.credentialID == authenticator.credentialID)
            #expect(result.signCount == expectedCount)
            #expect(result.userHandle == authenticator.userHandle)
            #expect(result.isUserVerified)
            stored.signCount = result.signCount
        }
    }

    @Test("replay: the same assertion again, once its counter is stored, is refused")
    func replay() throws {
        var authenticator = SoftwareAuthenticator.es256()
        var stored = try enroll(authenticator)
        let challenge = WebAuthnChallenge.generate().bytes
        let response = authenticator.assert(challenge: challenge)
        stored.signCount = try relyingParty.verifyAssertion(response, expectedChallenge: challenge, credential: stored, requireUserVerification: true).signCount
        #expect(throws: WebAuthnError.counterWentBack(stored: 1, received: 1)) {
            try relyingParty.verifyAssertion(response, expectedChallenge: challenge, credential: stored, requireUserVerification: true)
        }
    }

    @Test("sign counter rule: both zero is fine (synced passkeys); a lower or equal non-zero count is a possible clone")
    func counterRule() throws {
        var authenticator = SoftwareAuthenticator.rs256()
        var stored = try enroll(authenticator)
        let challenge = WebAuthnChallenge.generate().bytes
        // A passkey that never counts: 0 then 0.
        let zero = authenticator.assert(challenge: challenge, counting: false)
        #expect(try relyingParty.verifyAssertion(zero, expectedChallenge: challenge, credential: stored, requireUserVerification: true).signCount == 0)
        // A clone that lags behind: stored 5, authenticator says 3.
        stored.signCount = 5
        authenticator.signCount = 2
        #expect(throws: WebAuthnError.counterWentBack(stored: 5, received: 3)) {
            try relyingParty.verifyAssertion(authenticator.assert(challenge: challenge), expectedChallenge: challenge, credential: stored, requireUserVerification: true)
        }
        // A counting credential that suddenly reports 0 (spec §7.2 step 21: either non-zero → must grow).
        authenticator.signCount = 0
        let reset = authenticator.assert(challenge: challenge, counting: false)
        #expect(throws: WebAuthnError.counterWentBack(stored: 5, received: 0)) {
            try relyingParty.verifyAssertion(reset, expectedChallenge: challenge, credential: stored, requireUserVerification: true)
        }
        // Stored 0, new 7: accepted and the new value is returned to store.
        stored.signCount = 0
        authenticator.signCount = 6
        #expect(try relyingParty.verifyAssertion(authenticator.assert(challenge: challenge), expectedChallenge: challenge, credential: stored, requireUserVerification: true).signCount == 7)
    }

    @Test("refusals with a correctly signed response: challenge, origin, RP ID, type, UP, UV, cross-origin", arguments: ["es256", "rs256"])
    func refusals(algorithm: String) throws {
        var authenticator = algorithm == "es256" ? SoftwareAuthenticator.es256() : SoftwareAuthenticator.rs256()
        let stored = try enroll(authenticator)
        let challenge = WebAuthnChallenge.generate().bytes
        func verify(_ response: AssertionResponse) throws(WebAuthnError) {
            _ = try relyingParty.verifyAssertion(response, expectedChallenge: challenge, credential: stored, requireUserVerification: true)
        }
        #expect(throws: WebAuthnError.wrongChallenge) { try verify(authenticator.assert(challenge: WebAuthnChallenge.generate().bytes)) }
        #expect(throws: WebAuthnError.wrongOrigin) { try verify(authenticator.assert(origin: "http://evil.localhost:8080", challenge: challenge)) }
        #expect(throws: WebAuthnError.wrongOrigin) { try verify(authenticator.assert(challenge: challenge, crossOrigin: true)) }
        #expect(throws: WebAuthnError.wrongRelyingParty) { try verify(authenticator.assert(rpID: "example.com", challenge: challenge)) }
        #expect(throws: WebAuthnError.userNotPresent) { try verify(authenticator.assert(challenge: challenge, flags: SoftwareAuthenticator.flagUV)) }
        #expect(throws: WebAuthnError.userNotVerified) { try verify(authenticator.assert(challenge: challenge, flags: SoftwareAuthenticator.flagUP)) }
        #expect(throws: WebAuthnError.malformed(#"clientDataJSON type is "webauthn.create", expected "webauthn.get""#)) {
            try verify(authenticator.assert(challenge: challenge, type: "webauthn.create"))
        }
        // Without the UV requirement the same UP-only response passes.
        let upOnly = authenticator.assert(challenge: challenge, flags: SoftwareAuthenticator.flagUP)
        #expect(try !relyingParty.verifyAssertion(upOnly, expectedChallenge: challenge, credential: stored, requireUserVerification: false).isUserVerified)
    }

    @Test("tampering with authenticator data, clientDataJSON or signature breaks the signature", arguments: ["es256", "rs256"])
    func tampering(algorithm: String) throws {
        var authenticator = algorithm == "es256" ? SoftwareAuthenticator.es256() : SoftwareAuthenticator.rs256()
        let stored = try enroll(authenticator)
        let challenge = WebAuthnChallenge.generate().bytes
        let good = authenticator.assert(challenge: challenge)
        func verify(_ response: AssertionResponse) throws(WebAuthnError) {
            _ = try relyingParty.verifyAssertion(response, expectedChallenge: challenge, credential: stored, requireUserVerification: true)
        }
        try verify(good)

        var counterRaised = good
        counterRaised.authenticatorData[36] &+= 100 // claim a higher sign count
        #expect(throws: WebAuthnError.badSignature) { try verify(counterRaised) }

        var uvAdded = authenticator.assert(challenge: challenge, flags: SoftwareAuthenticator.flagUP)
        uvAdded.authenticatorData[32] |= SoftwareAuthenticator.flagUV // claim verification that did not happen
        #expect(throws: WebAuthnError.badSignature) { try verify(uvAdded) }

        var clientDataChanged = good
        clientDataChanged.clientDataJSON = Array(String(decoding: good.clientDataJSON, as: UTF8.self).replacingOccurrences(of: "}", with: #","extra":1}"#).utf8)
        #expect(throws: WebAuthnError.badSignature) { try verify(clientDataChanged) }

        var signatureChanged = good
        signatureChanged.signature[signatureChanged.signature.count - 1] ^= 0x01
        #expect(throws: WebAuthnError.badSignature) { try verify(signatureChanged) }

        var truncatedSignature = good
        truncatedSignature.signature.removeLast()
        #expect(throws: WebAuthnError.badSignature) { try verify(truncatedSignature) }

        var otherKey = good
        otherKey.signature = (algorithm == "es256" ? SoftwareAuthenticator.es256() : SoftwareAuthenticator(key: .rs256(try .init(keySize: .bits2048))))
            .sign(good.authenticatorData + Array(SHA256.hash(data: good.clientDataJSON)))
        #expect(throws: WebAuthnError.badSignature) { try verify(otherKey) }
    }

    @Test("an ES256 signature in raw r||s form instead of DER is refused")
    func rawECDSA() throws {
        let privateKey = P256.Signing.PrivateKey()
        var authenticator = SoftwareAuthenticator(key: .es256(privateKey))
        let stored = try enroll(authenticator)
        let challenge = WebAuthnChallenge.generate().bytes
        var response = authenticator.assert(challenge: challenge)
        response.signature = Array(try P256.Signing.ECDSASignature(derRepresentation: response.signature).rawRepresentation)
        #expect(throws: WebAuthnError.badSignature) {
            try relyingParty.verifyAssertion(response, expectedChallenge: challenge, credential: stored, requireUserVerification: true)
        }
    }

    @Test("credential and user handle must match the stored credential; a missing handle only fails when required")
    func credentialBinding() throws {
        var authenticator = SoftwareAuthenticator.es256()
        let stored = try enroll(authenticator)
        let challenge = WebAuthnChallenge.generate().bytes
        func verify(_ response: AssertionResponse, requireUserHandle: Bool = false) throws(WebAuthnError) -> VerifiedAssertion {
            try relyingParty.verifyAssertion(response, expectedChallenge: challenge, credential: stored, requireUserVerification: true, requireUserHandle: requireUserHandle)
        }
        var otherID = authenticator.assert(challenge: challenge)
        otherID.credentialID[0] ^= 0xff
        #expect(throws: WebAuthnError.credentialMismatch) { try verify(otherID) }

        var otherUser = authenticator.assert(challenge: challenge)
        otherUser.userHandle = [1, 2, 3]
        #expect(throws: WebAuthnError.credentialMismatch) { try verify(otherUser) }

        var noHandle = authenticator.assert(challenge: challenge)
        noHandle.userHandle = nil
        #expect(throws: WebAuthnError.credentialMismatch) { try verify(noHandle, requireUserHandle: true) }
        #expect(try verify(noHandle).userHandle == nil)
    }

    @Test("a stored key whose algorithm the relying party no longer allows is refused")
    func algorithmPolicy() throws {
        var authenticator = SoftwareAuthenticator.rs256()
        let stored = try enroll(authenticator)
        let challenge = WebAuthnChallenge.generate().bytes
        let es256Only = WebAuthnRelyingParty(id: "localhost", origin: "http://localhost:8080", allowedAlgorithms: [.es256])
        #expect(throws: WebAuthnError.unsupportedAlgorithm(-257)) {
            try es256Only.verifyAssertion(authenticator.assert(challenge: challenge), expectedChallenge: challenge, credential: stored, requireUserVerification: true)
        }
    }
}
