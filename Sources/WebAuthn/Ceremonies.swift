/// What the browser returned from `navigator.credentials.create()` (decode the base64url fields first).
public struct RegistrationResponse: Sendable {
    public var clientDataJSON: [UInt8]
    public var attestationObject: [UInt8]

    public init(clientDataJSON: [UInt8], attestationObject: [UInt8]) {
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
    }
}

/// What the browser returned from `navigator.credentials.get()` (decode the base64url fields first).
public struct AssertionResponse: Sendable {
    /// `rawId` of the credential used; look the stored credential up by it.
    public var credentialID: [UInt8]
    public var clientDataJSON: [UInt8]
    public var authenticatorData: [UInt8]
    public var signature: [UInt8]
    /// `response.userHandle`: the `user.id` given at registration; passkeys always send it.
    public var userHandle: [UInt8]?

    public init(credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]?) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}

/// How the attestation statement of a new credential was treated.
public enum AttestationKind: Sendable, Equatable {
    /// Format "none": no statement about the authenticator (what passkeys send).
    case none
    /// Format "packed" without a certificate: signed by the credential key itself, signature checked.
    case selfAttestation
    /// Another format, accepted under `.acceptUnverified` without checking or trusting it.
    case unverified(format: String)
}

/// A newly registered credential: store all of it with the user (transports come from the
/// browser's `response.getTransports()`, not from here).
public struct RegisteredCredential: Sendable, Equatable {
    /// The credential ID; refuse the registration if another account already has it.
    public let id: [UInt8]
    /// The COSE_Key bytes, exactly as the authenticator sent them; pass them back in `StoredCredential`.
    public let publicKey: [UInt8]
    public let algorithm: COSEAlgorithm
    public let signCount: UInt32
    /// Authenticator model id (16 bytes; all zero for most passkeys and with attestation "none").
    public let aaguid: [UInt8]
    public let isUserVerified: Bool
    /// BE flag: the credential may be synced to other devices (a multi-device passkey).
    public let isBackupEligible: Bool
    /// BS flag: it is currently backed up / synced.
    public let isBackedUp: Bool
    public let attestation: AttestationKind
}

/// A credential as the server stored it, needed to check a sign-in.
public struct StoredCredential: Sendable {
    public var id: [UInt8]
    /// `RegisteredCredential.publicKey`.
    public var publicKey: [UInt8]
    /// The last sign count seen (registration's, then each successful assertion's).
    public var signCount: UInt32
    /// The `user.id` (user handle) this credential was registered for.
    public var userHandle: [UInt8]

    public init(id: [UInt8], publicKey: [UInt8], signCount: UInt32, userHandle: [UInt8]) {
        self.id = id
        self.publicKey = publicKey
        self.signCount = signCount
        self.userHandle = userHandle
    }
}

/// A successful sign-in: store `signCount` (and the backup flag) back on the credential.
public struct VerifiedAssertion: Sendable, Equatable {
    public let credentialID: [UInt8]
    public let signCount: UInt32
    /// The userHandle the browser sent (equal to the stored one when present); for a
    /// discoverable (username-less) sign-in this identifies the user.
    public let userHandle: [UInt8]?
    public let isUserVerified: Bool
    public let isBackupEligible: Bool
    public let isBackedUp: Bool
}
