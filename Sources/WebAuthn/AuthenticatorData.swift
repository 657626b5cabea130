/// The authenticator data structure (WebAuthn Level 2 §6.1), which the authenticator signs.
struct AuthenticatorData: Sendable {
    /// The flags byte (§6.1, table "Flags").
    struct Flags: OptionSet, Sendable, Hashable {
        let rawValue: UInt8
        static let userPresent = Flags(rawValue: 1 << 0)
        static let userVerified = Flags(rawValue: 1 << 2)
        static let backupEligible = Flags(rawValue: 1 << 3)
        static let backedUp = Flags(rawValue: 1 << 4)
        static let attestedCredentialData = Flags(rawValue: 1 << 6)
        static let extensionData = Flags(rawValue: 1 << 7)
    }

    /// Present when the AT flag is set (registration): §6.5.1.
    struct AttestedCredentialData: Sendable {
        let aaguid: [UInt8]
        let credentialID: [UInt8]
        /// The COSE_Key exactly as the authenticator encoded it (what the server stores).
        let publicKeyBytes: [UInt8]
        let publicKey: CBORValue
    }

    let rpIDHash: [UInt8]
    let flags: Flags
    let signCount: UInt32
    let attestedCredentialData: AttestedCredentialData?
    let extensions: CBORValue?

    init(bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count >= 37 else { throw .malformed("authenticator data shorter than 37 bytes") }
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { ($0 << 8) | UInt32($1) }
        var position = 37

        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= position + 18 else { throw .malformed("attested credential data truncated") }
            let aaguid = Array(bytes[position..<position + 16])
            let idLength = Int(bytes[position + 16]) << 8 | Int(bytes[position + 17])
            position += 18
            guard bytes.count >= position + idLength else { throw .malformed("credential ID truncated") }
            let credentialID = Array(bytes[position..<position + idLength])
            position += idLength
            // The COSE key has no length prefix: only decoding it tells where it ends.
            let (key, consumed) = try Self.decodeCBOR(bytes[position...], what: "credential public key")
            attestedCredentialData = AttestedCredentialData(
                aaguid: aaguid,
                credentialID: credentialID,
                publicKeyBytes: Array(bytes[position..<position + consumed]),
                publicKey: key
            )
            position += consumed
        } else {
            attestedCredentialData = nil
        }

        if flags.contains(.extensionData) {
            let (value, consumed) = try Self.decodeCBOR(bytes[position...], what: "extensions")
            guard value.mapEntries != nil else { throw .malformed("extensions are not a CBOR map") }
            extensions = value
            position += consumed
        } else {
            extensions = nil
        }

        guard position == bytes.count else {
            throw .malformed("\(bytes.count - position) unexpected bytes after authenticator data")
        }
    }

    private static func decodeCBOR(_ bytes: ArraySlice<UInt8>, what: String) throws(WebAuthnError) -> (CBORValue, Int) {
        do {
            return try CBORDecoder.decodePrefix(bytes)
        } catch {
            throw .malformed("\(what): \(error)")
        }
    }
}
