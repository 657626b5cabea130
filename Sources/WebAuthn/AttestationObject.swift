/// The CBOR attestation object (WebAuthn Level 2 §6.5.4): `{fmt, attStmt, authData}`.
struct AttestationObject: Sendable {
    let format: String
    let statement: [CBORMapEntry]
    let authenticatorData: [UInt8]

    init(bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(bytes)
        } catch {
            throw .malformed("attestationObject: \(error)")
        }
        guard value.mapEntries != nil else { throw .malformed("attestationObject is not a map") }
        guard let format = value[textKey: "fmt"]?.text else { throw .malformed("attestationObject has no text fmt") }
        guard let statement = value[textKey: "attStmt"]?.mapEntries else { throw .malformed("attestationObject has no attStmt map") }
        guard let authenticatorData = value[textKey: "authData"]?.bytes else { throw .malformed("attestationObject has no authData bytes") }
        self.format = format
        self.statement = statement
        self.authenticatorData = authenticatorData
    }
}
