import Crypto
import Testing
@testable import WebAuthn
import WebAuthnTestSupport

@Suite("Registration ceremony (§7.1) with the software authenticator")
struct RegistrationTests {
    let relyingParty = WebAuthnRelyingParty(id: "localhost", origin: "http://localhost:8080")
    let challenge = WebAuthnChallenge.generate().bytes

    @Test("ES256 and RS256 credentials register and report what to store", arguments: ["es256", "rs256"])
    func registers(algorithm: String) throws {
        let authenticator = algorithm == "es256" ? SoftwareAuthenticator.es256() : SoftwareAuthenticator.rs256()
        let response = authenticator.register(challenge: challenge)
        let credential = try relyingParty.verifyRegistration(response, expectedChallenge: challenge, requireUserVerification: true)
        #expect(credential.id == authenticator.credentialID)
        #expect(credential.publicKey == authenticator.coseKey.encoded)
        #expect(credential.algorithm == (algorithm == "es256" ? .es256 : .rs256))
        #expect(credential.signCount == 0)
        #expect(credential.aaguid == [UInt8](repeating: 0, count: 16))
        #expect(credential.isUserVerified && !credential.isBackupEligible && !credential.isBackedUp)
        #expect(credential.attestation == AttestationKind.none)
    }

    @Test("backup flags are reported (synced passkey: BE and BS)")
    func backupFlags() throws {
        let flags = SoftwareAuthenticator.flagUP | SoftwareAuthenticator.flagUV | SoftwareAuthenticator.flagAT
            | SoftwareAuthenticator.flagBE | SoftwareAuthenticator.flagBS
        let response = SoftwareAuthenticator.es256().register(challenge: challenge, flags: flags)
        let credential = try relyingParty.verifyRegistration(response, expectedChallenge: challenge, requireUserVerification: true)
        #expect(credential.isBackupEligible && credential.isBackedUp)
    }

    @Test("UV is only demanded when asked for")
    func userVerification() throws {
        let response = SoftwareAuthenticator.es256().register(challenge: challenge, flags: SoftwareAuthenticator.flagUP | SoftwareAuthenticator.flagAT)
        #expect(throws: WebAuthnError.userNotVerified) {
            try relyingParty.verifyRegistration(response, expectedChallenge: challenge, requireUserVerification: true)
        }
        let credential = try relyingParty.verifyRegistration(response, expectedChallenge: challenge, requireUserVerification: false)
        #expect(!credential.isUserVerified)
    }

    @Test("packed self attestation: accepted with a good signature, refused with a bad one or another alg")
    func packedSelfAttestation() throws {
        for authenticator in [SoftwareAuthenticator.es256(), SoftwareAuthenticator.rs256()] {
            let unsigned = authenticator.register(challenge: challenge)
            // Sign authData || SHA-256(clientDataJSON) with the credential key itself (§8.2).
            let authData = try #require(CBORDecoder.decode(unsigned.attestationObject)[textKey: "authData"]?.bytes)
            let signature = authenticator.sign(authData + Array(SHA256.hash(data: unsigned.clientDataJSON)))
            let alg = authenticator.coseKey[intKey: 3]!
            let good = authenticator.register(challenge: challenge, format: "packed", statement: cborMap([(.text("alg"), alg), (.text("sig"), .bytes(signature))]))
            let credential = try relyingParty.verifyRegistration(good, expectedChallenge: challenge, requireUserVerification: true)
            #expect(credential.attestation == .selfAttestation)

            var forged = signature
            forged[forged.count / 2] ^= 0x01
            let bad = authenticator.register(challenge: challenge, format: "packed", statement: cborMap([(.text("alg"), alg), (.text("sig"), .bytes(forged))]))
            #expect(throws: WebAuthnError.badSignature) {
                try relyingParty.verifyRegistration(bad, expectedChallenge: challenge, requireUserVerification: true)
            }
            let otherAlg = authenticator.register(challenge: challenge, format: "packed", statement: cborMap([(.text("alg"), .int(-8)), (.text("sig"), .bytes(signature))]))
            #expect(throws: WebAuthnError.self) {
                try relyingParty.verifyRegistration(otherAlg, expectedChallenge: challenge, requireUserVerification: true)
            }
        }
    }

    @Test("other attestation formats: refused by default, accepted unverified when configured")
    func otherFormats() throws {
        let authenticator = SoftwareAuthenticator.es256()
        let certificateStatement = cborMap([(.text("alg"), .int(-7)), (.text("sig"), .bytes([1])), (.text("x5c"), .array([.bytes([0x30])]))])
        let packedFull = authenticator.register(challenge: challenge, format: "packed", statement: certificateStatement)
        let u2f = authenticator.register(challenge: challenge, format: "fido-u2f", statement: cborMap([(.text("sig"), .bytes([1]))]))
        #expect(throws: WebAuthnError.unsupportedAttestationFormat("packed with certificate")) {
            try relyingParty.verifyRegistration(packedFull, expectedChallenge: challenge, requireUserVerification: true)
        }
        #expect(throws: WebAuthnError.unsupportedAttestationFormat("fido-u2f")) {
            try relyingParty.verifyRegistration(u2f, expectedChallenge: challenge, requireUserVerification: true)
        }
        let lenient = WebAuthnRelyingParty(id: "localhost", origin: "http://localhost:8080", otherAttestation: .acceptUnverified)
        #expect(try lenient.verifyRegistration(packedFull, expectedChallenge: challenge, requireUserVerification: true).attestation == .unverified(format: "packed"))
        #expect(try lenient.verifyRegistration(u2f, expectedChallenge: challenge, requireUserVerification: true).attestation == .unverified(format: "fido-u2f"))
    }

    @Test("refusals: challenge, origin, RP ID, user presence, type, cross-origin, algorithm policy")
    func refusals() throws {
        let authenticator = SoftwareAuthenticator.es256()
        let otherChallenge = WebAuthnChallenge.generate().bytes
        func verify(_ response: RegistrationResponse, by party: WebAuthnRelyingParty? = nil) throws(WebAuthnError) {
            _ = try (party ?? relyingParty).verifyRegistration(response, expectedChallenge: challenge, requireUserVerification: false)
        }
        #expect(throws: WebAuthnError.wrongChallenge) { try verify(authenticator.register(challenge: otherChallenge)) }
        // A lost server-side challenge (empty) never matches, even a response that echoes an empty one.
        #expect(throws: WebAuthnError.wrongChallenge) {
            try relyingParty.verifyRegistration(authenticator.register(challenge: []), expectedChallenge: [], requireUserVerification: false)
        }
        #expect(throws: WebAuthnError.wrongOrigin) { try verify(authenticator.register(origin: "http://localhost:8081", challenge: challenge)) }
        #expect(throws: WebAuthnError.wrongOrigin) { try verify(authenticator.register(origin: "https://localhost:8080", challenge: challenge)) }
        #expect(throws: WebAuthnError.wrongRelyingParty) { try verify(authenticator.register(rpID: "evil.example", challenge: challenge)) }
        #expect(throws: WebAuthnError.userNotPresent) {
            try verify(authenticator.register(challenge: challenge, flags: SoftwareAuthenticator.flagUV | SoftwareAuthenticator.flagAT))
        }
        #expect(throws: WebAuthnError.malformed("registration without attested credential data (AT flag clear)")) {
            try verify(authenticator.register(challenge: challenge, flags: SoftwareAuthenticator.flagUP))
        }
        #expect(throws: WebAuthnError.malformed(#"clientDataJSON type is "webauthn.get", expected "webauthn.create""#)) {
            try verify(authenticator.register(challenge: challenge, type: "webauthn.get"))
        }
        #expect(throws: WebAuthnError.malformed("BS flag set without BE")) {
            try verify(authenticator.register(challenge: challenge, flags: SoftwareAuthenticator.flagUP | SoftwareAuthenticator.flagAT | SoftwareAuthenticator.flagBS))
        }
        let es256Only = WebAuthnRelyingParty(id: "localhost", origin: "http://localhost:8080", allowedAlgorithms: [.es256])
        #expect(throws: WebAuthnError.unsupportedAlgorithm(-257)) { try verify(SoftwareAuthenticator.rs256().register(challenge: challenge), by: es256Only) }
        #expect(throws: WebAuthnError.malformed(#""none" attestation with a non-empty attStmt"#)) {
            try verify(authenticator.register(challenge: challenge, statement: cborMap([(.text("sig"), .bytes([1]))])))
        }
    }

    @Test("cross-origin iframes and token binding are refused")
    func crossOriginAndTokenBinding() throws {
        let authenticator = SoftwareAuthenticator.es256()
        var response = authenticator.register(challenge: challenge)
        let base = String(decoding: response.clientDataJSON, as: UTF8.self)
        response.clientDataJSON = Array(base.replacingOccurrences(of: #""crossOrigin":false"#, with: #""crossOrigin":true"#).utf8)
        #expect(throws: WebAuthnError.wrongOrigin) {
            try relyingParty.verifyRegistration(response, expectedChallenge: challenge, requireUserVerification: false)
        }
        response.clientDataJSON = Array(base.replacingOccurrences(of: "}", with: #","tokenBinding":{"status":"present","id":"AAA"}}"#).utf8)
        #expect(throws: WebAuthnError.malformed("token binding is not supported")) {
            try relyingParty.verifyRegistration(response, expectedChallenge: challenge, requireUserVerification: false)
        }
        // "supported" means the browser could, but did not, bind: nothing to check.
        response.clientDataJSON = Array(base.replacingOccurrences(of: "}", with: #","tokenBinding":{"status":"supported"}}"#).utf8)
        _ = try relyingParty.verifyRegistration(response, expectedChallenge: challenge, requireUserVerification: false)
    }

    @Test("malformed bytes: not JSON, missing members, CBOR garbage, trailing bytes, oversize")
    func malformed() throws {
        let good = SoftwareAuthenticator.es256().register(challenge: challenge)
        func expectMalformed(_ response: RegistrationResponse, _ comment: Comment) {
            do {
                _ = try relyingParty.verifyRegistration(response, expectedChallenge: challenge, requireUserVerification: false)
                Issue.record("accepted: \(comment)")
            } catch {
                guard case .malformed = error else { Issue.record("\(comment): \(error)"); return }
            }
        }
        expectMalformed(RegistrationResponse(clientDataJSON: Array("not json".utf8), attestationObject: good.attestationObject), "not JSON")
        expectMalformed(RegistrationResponse(clientDataJSON: Array(#"{"type":"webauthn.create"}"#.utf8), attestationObject: good.attestationObject), "no challenge")
        expectMalformed(RegistrationResponse(clientDataJSON: good.clientDataJSON, attestationObject: [0xa0]), "empty attestation map")
        expectMalformed(RegistrationResponse(clientDataJSON: good.clientDataJSON, attestationObject: good.attestationObject + [0x00]), "trailing byte")
        expectMalformed(RegistrationResponse(clientDataJSON: good.clientDataJSON, attestationObject: Array(good.attestationObject.dropLast())), "truncated")
        expectMalformed(RegistrationResponse(clientDataJSON: good.clientDataJSON, attestationObject: [UInt8](repeating: 0x40, count: 70_000)), "oversize")
    }
}
