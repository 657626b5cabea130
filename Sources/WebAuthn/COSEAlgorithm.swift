/// COSE algorithm identifiers (IANA "COSE Algorithms") this module can verify.
/// Offer them in `pubKeyCredParams` as `{type: "public-key", alg: rawValue}`.
public enum COSEAlgorithm: Int64, Sendable, Hashable, CaseIterable {
    /// ECDSA on P-256 with SHA-256: what passkeys almost always use.
    case es256 = -7
    /// RSASSA-PKCS1-v1_5 with SHA-256: Windows Hello and some security keys.
    case rs256 = -257
}
