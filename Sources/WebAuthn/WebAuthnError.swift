/// Why a registration or sign-in was refused. Every case means "do not accept this credential";
/// the distinct cases are for logs and tests, not for telling the browser which check failed.
public enum WebAuthnError: Error, Sendable, Equatable {
    /// clientDataJSON's challenge is not the one this server issued for the ceremony.
    case wrongChallenge
    /// clientDataJSON's origin is not the expected origin, or the call came from a cross-origin iframe.
    case wrongOrigin
    /// The authenticator data's rpIdHash is not SHA-256 of our RP ID.
    case wrongRelyingParty
    /// The UP flag is not set: no user gesture happened.
    case userNotPresent
    /// User verification was required but the UV flag is not set.
    case userNotVerified
    /// The assertion signature (or packed self-attestation signature) does not verify.
    case badSignature
    /// The signature counter did not increase: possibly a cloned authenticator, or a replay.
    case counterWentBack(stored: UInt32, received: UInt32)
    /// The credential key uses an algorithm this relying party does not accept (COSE id).
    case unsupportedAlgorithm(Int64)
    /// An attestation format this relying party does not accept (see `WebAuthnRelyingParty.OtherAttestation`).
    case unsupportedAttestationFormat(String)
    /// The response names another credential, or its userHandle is missing or is not the credential owner's.
    case credentialMismatch
    /// Bytes or JSON that do not follow the WebAuthn structures; the reason is for logs.
    case malformed(String)
}
