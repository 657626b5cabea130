import Crypto
import _CryptoExtras

/// A credential public key read from its COSE_Key encoding (RFC 9052 §7, RFC 9053 §2.1/§7.1, RFC 8230 §4).
enum CredentialPublicKey: Sendable {
    case es256(P256.Signing.PublicKey)
    case rs256(_RSA.Signing.PublicKey)

    // COSE labels. Key-type parameters reuse negative labels: -1/-2/-3 mean crv/x/y for EC2 but n/e for RSA.
    private enum Label {
        static let keyType: Int64 = 1
        static let algorithm: Int64 = 3
        static let ec2Curve: Int64 = -1
        static let ec2X: Int64 = -2
        static let ec2Y: Int64 = -3
        static let rsaModulus: Int64 = -1
        static let rsaExponent: Int64 = -2
    }

    private enum KeyType {
        static let ec2: Int64 = 2
        static let rsa: Int64 = 3
    }

    private static let curveP256: Int64 = 1
    /// Larger RSA keys only cost verification time; nothing real uses more than 4096 bits.
    private static let maxRSAModulusBytes = 512

    /// Parses stored COSE bytes (as returned in `RegisteredCredential.publicKey`).
    init(coseBytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(coseBytes)
        } catch {
            throw .malformed("credential public key is not CBOR: \(error)")
        }
        try self.init(cose: value)
    }

    init(cose: CBORValue) throws(WebAuthnError) {
        guard cose.mapEntries != nil else { throw .malformed("COSE key is not a map") }
        guard let algorithmID = cose[intKey: Label.algorithm]?.int64 else {
            throw .malformed("COSE key has no integer alg")
        }
        guard let algorithm = COSEAlgorithm(rawValue: algorithmID) else {
            throw .unsupportedAlgorithm(algorithmID)
        }
        let keyType = cose[intKey: Label.keyType]?.int64
        let keyTypeName = keyType.map(String.init) ?? "missing"
        switch algorithm {
        case .es256:
            guard keyType == KeyType.ec2 else { throw .malformed("ES256 key with kty \(keyTypeName)") }
            guard cose[intKey: Label.ec2Curve]?.int64 == Self.curveP256 else { throw .malformed("ES256 key not on curve P-256") }
            guard let x = cose[intKey: Label.ec2X]?.bytes, let y = cose[intKey: Label.ec2Y]?.bytes,
                  x.count == 32, y.count == 32
            else { throw .malformed("ES256 key needs 32-byte x and y") }
            do {
                // Uncompressed SEC1 point; swift-crypto checks that it lies on the curve.
                self = .es256(try P256.Signing.PublicKey(x963Representation: [0x04] + x + y))
            } catch {
                throw .malformed("ES256 point is not on P-256")
            }
        case .rs256:
            guard keyType == KeyType.rsa else { throw .malformed("RS256 key with kty \(keyTypeName)") }
            guard let modulus = cose[intKey: Label.rsaModulus]?.bytes, let exponent = cose[intKey: Label.rsaExponent]?.bytes,
                  !modulus.isEmpty, !exponent.isEmpty
            else { throw .malformed("RS256 key needs n and e") }
            guard modulus.count <= Self.maxRSAModulusBytes else { throw .malformed("RSA modulus over 4096 bits") }
            do {
                // Refuses moduli under 2048 bits.
                self = .rs256(try _RSA.Signing.PublicKey(n: modulus, e: exponent))
            } catch {
                throw .malformed("RSA key refused (under 2048 bits or invalid): \(error)")
            }
        }
    }

    var algorithm: COSEAlgorithm {
        switch self {
        case .es256: return .es256
        case .rs256: return .rs256
        }
    }

    /// Verifies a WebAuthn signature over `data`: DER-encoded ECDSA for ES256 (WebAuthn §6.5.6),
    /// PKCS#1 v1.5 for RS256 — both with SHA-256 over `data`.
    func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        switch self {
        case .es256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: data)
        case .rs256(let key):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature),
                for: SHA256.hash(data: data),
                padding: .insecurePKCS1v1_5
            )
        }
    }
}
