import Crypto

/// Server-side WebAuthn Level 2 verification of passkey registrations (§7.1) and sign-ins (§7.2).
///
/// The caller owns what needs storage or sessions: issuing a `WebAuthnChallenge` per ceremony and
/// keeping it server-side (single use), looking credentials up by ID, refusing a credential ID
/// already registered, checking that a sign-in's credential belongs to the expected user, and
/// saving the returned sign count. Verification is cheap CPU work (one ECDSA or RSA verify,
/// well under a millisecond) and never blocks, so it can run on an async task directly.
public struct WebAuthnRelyingParty: Sendable {
    /// What to do with attestation formats other than "none" and packed self-attestation
    /// (full attestation needs trust anchors that this module does not have).
    public enum OtherAttestation: Sendable {
        /// Refuse them with `.unsupportedAttestationFormat`. With `attestation: "none"` in the
        /// creation options a Level 2 browser only ever sends "none" or packed self-attestation.
        case refuse
        /// Register the credential but treat the statement as absent, unchecked and untrusted
        /// (WebAuthn §7.1 step 23 allows this); reported as `.unverified(format:)`.
        case acceptUnverified
    }

    /// RP ID: the registrable domain, e.g. `example.com` or `localhost` (never an IP address).
    public let id: String
    /// The exact origin the pages run at, e.g. `https://example.com` or `http://localhost:8080`.
    public let origin: String
    public let allowedAlgorithms: Set<COSEAlgorithm>
    public let otherAttestation: OtherAttestation

    // Real values are a few hundred bytes; the caps keep hostile requests cheap.
    static let maxClientDataJSONBytes = 8 * 1024
    static let maxAttestationObjectBytes = 64 * 1024
    static let maxAuthenticatorDataBytes = 16 * 1024
    static let maxCredentialIDBytes = 1023
    static let maxUserHandleBytes = 64
    static let maxSignatureBytes = 1024

    private let rpIDHash: [UInt8]

    public init(
        id: String,
        origin: String,
        allowedAlgorithms: Set<COSEAlgorithm> = [.es256, .rs256],
        otherAttestation: OtherAttestation = .refuse
    ) {
        self.id = id
        self.origin = origin
        self.allowedAlgorithms = allowedAlgorithms
        self.otherAttestation = otherAttestation
        self.rpIDHash = Array(SHA256.hash(data: Array(id.utf8)))
    }

    /// Verifies a `navigator.credentials.create()` result (WebAuthn Level 2 §7.1).
    /// - Parameters:
    ///   - expectedChallenge: the challenge issued for this registration (≥ 16 bytes; then discard it).
    ///   - requireUserVerification: true when the options said `userVerification: "required"`.
    public func verifyRegistration(
        _ response: RegistrationResponse,
        expectedChallenge: [UInt8],
        requireUserVerification: Bool
    ) throws(WebAuthnError) -> RegisteredCredential {
        guard response.clientDataJSON.count <= Self.maxClientDataJSONBytes else { throw .malformed("clientDataJSON too large") }
        guard response.attestationObject.count <= Self.maxAttestationObjectBytes else { throw .malformed("attestationObject too large") }

        let clientData = try CollectedClientData.parse(response.clientDataJSON)
        try clientData.verify(type: "webauthn.create", challenge: expectedChallenge, origin: origin)
        let clientDataHash = Array(SHA256.hash(data: response.clientDataJSON))

        let attestation = try AttestationObject(bytes: response.attestationObject)
        let authenticatorData = try AuthenticatorData(bytes: attestation.authenticatorData)
        try checkFlagsAndRelyingParty(authenticatorData, requireUserVerification: requireUserVerification)

        guard let credential = authenticatorData.attestedCredentialData else {
            throw .malformed("registration without attested credential data (AT flag clear)")
        }
        guard !credential.credentialID.isEmpty, credential.credentialID.count <= Self.maxCredentialIDBytes else {
            throw .malformed("credential ID length \(credential.credentialID.count)")
        }
        let publicKey = try CredentialPublicKey(cose: credential.publicKey)
        guard allowedAlgorithms.contains(publicKey.algorithm) else {
            throw .unsupportedAlgorithm(publicKey.algorithm.rawValue)
        }

        let kind = try verifyAttestationStatement(
            attestation,
            publicKey: publicKey,
            signedData: attestation.authenticatorData + clientDataHash
        )

        return RegisteredCredential(
            id: credential.credentialID,
            publicKey: credential.publicKeyBytes,
            algorithm: publicKey.algorithm,
            signCount: authenticatorData.signCount,
            aaguid: credential.aaguid,
            isUserVerified: authenticatorData.flags.contains(.userVerified),
            isBackupEligible: authenticatorData.flags.contains(.backupEligible),
            isBackedUp: authenticatorData.flags.contains(.backedUp),
            attestation: kind
        )
    }

    /// Verifies a `navigator.credentials.get()` result (WebAuthn Level 2 §7.2) against the stored credential.
    ///
    /// Sign counter (§7.2 step 21): if either the stored or the new count is non-zero, the new one
    /// must be greater, otherwise `.counterWentBack` (a possible clone). Both zero is accepted:
    /// synced passkeys do not count.
    /// - Parameters:
    ///   - expectedChallenge: the challenge issued for this sign-in (≥ 16 bytes; then discard it).
    ///   - credential: the stored credential whose ID equals `response.credentialID`.
    ///   - requireUserVerification: true when the options said `userVerification: "required"`.
    ///   - requireUserHandle: true for a username-less (discoverable) sign-in, where the userHandle
    ///     is what says who is signing in (§7.2 step 6).
    public func verifyAssertion(
        _ response: AssertionResponse,
        expectedChallenge: [UInt8],
        credential: StoredCredential,
        requireUserVerification: Bool,
        requireUserHandle: Bool = false
    ) throws(WebAuthnError) -> VerifiedAssertion {
        guard response.clientDataJSON.count <= Self.maxClientDataJSONBytes else { throw .malformed("clientDataJSON too large") }
        guard response.authenticatorData.count <= Self.maxAuthenticatorDataBytes else { throw .malformed("authenticatorData too large") }
        guard response.signature.count <= Self.maxSignatureBytes else { throw .malformed("signature too large") }

        // §7.2 step 6: the response must be for this credential, and of its owner.
        guard response.credentialID == credential.id else { throw .credentialMismatch }
        if let userHandle = response.userHandle {
            guard userHandle.count <= Self.maxUserHandleBytes, userHandle == credential.userHandle else { throw .credentialMismatch }
        } else if requireUserHandle {
            throw .credentialMismatch
        }

        let clientData = try CollectedClientData.parse(response.clientDataJSON)
        try clientData.verify(type: "webauthn.get", challenge: expectedChallenge, origin: origin)

        let authenticatorData = try AuthenticatorData(bytes: response.authenticatorData)
        try checkFlagsAndRelyingParty(authenticatorData, requireUserVerification: requireUserVerification)

        let publicKey = try CredentialPublicKey(coseBytes: credential.publicKey)
        guard allowedAlgorithms.contains(publicKey.algorithm) else {
            throw .unsupportedAlgorithm(publicKey.algorithm.rawValue)
        }
        let clientDataHash = Array(SHA256.hash(data: response.clientDataJSON))
        guard publicKey.isValidSignature(response.signature, for: response.authenticatorData + clientDataHash) else {
            throw .badSignature
        }

        let received = authenticatorData.signCount
        if received != 0 || credential.signCount != 0, received <= credential.signCount {
            throw .counterWentBack(stored: credential.signCount, received: received)
        }

        return VerifiedAssertion(
            credentialID: credential.id,
            signCount: received,
            userHandle: response.userHandle,
            isUserVerified: authenticatorData.flags.contains(.userVerified),
            isBackupEligible: authenticatorData.flags.contains(.backupEligible),
            isBackedUp: authenticatorData.flags.contains(.backedUp)
        )
    }

    /// rpIdHash, UP, UV and the BE/BS consistency rule, shared by both ceremonies.
    private func checkFlagsAndRelyingParty(_ data: AuthenticatorData, requireUserVerification: Bool) throws(WebAuthnError) {
        guard data.rpIDHash == rpIDHash else { throw .wrongRelyingParty }
        guard data.flags.contains(.userPresent) else { throw .userNotPresent }
        if requireUserVerification, !data.flags.contains(.userVerified) {
            throw .userNotVerified
        }
        // A credential that cannot be backed up cannot be backed up now (Level 3 §6.1.3).
        if data.flags.contains(.backedUp), !data.flags.contains(.backupEligible) {
            throw .malformed("BS flag set without BE")
        }
    }

    /// §7.1 steps 19–21 for the formats we can check; see `OtherAttestation` for the rest.
    private func verifyAttestationStatement(
        _ attestation: AttestationObject,
        publicKey: CredentialPublicKey,
        signedData: [UInt8]
    ) throws(WebAuthnError) -> AttestationKind {
        let statement = attestation.statement
        switch attestation.format {
        case "none":
            // §8.7: the statement of "none" is an empty map.
            guard statement.isEmpty else { throw .malformed("\"none\" attestation with a non-empty attStmt") }
            return .none
        case "packed" where statement.contains(where: { $0.key.text == "x5c" || $0.key.text == "ecdaaKeyId" }):
            guard otherAttestation == .acceptUnverified else { throw .unsupportedAttestationFormat("packed with certificate") }
            return .unverified(format: "packed")
        case "packed":
            // §8.2 self attestation: alg matches the credential key, which signed authData || clientDataHash.
            let entries = CBORValue.map(statement)
            guard let algorithm = entries[textKey: "alg"]?.int64, let signature = entries[textKey: "sig"]?.bytes else {
                throw .malformed("packed attStmt needs alg and sig")
            }
            guard algorithm == publicKey.algorithm.rawValue else {
                throw .malformed("packed self attestation alg \(algorithm) differs from the credential's")
            }
            guard publicKey.isValidSignature(signature, for: signedData) else { throw .badSignature }
            return .selfAttestation
        default:
            guard otherAttestation == .acceptUnverified else { throw .unsupportedAttestationFormat(attestation.format) }
            return .unverified(format: attestation.format)
        }
    }
}
