/// How much of a QR symbol may be damaged and still decode (ISO/IEC 18004 §7.5.1).
public enum QRErrorCorrectionLevel: Int, Sendable, CaseIterable {
    /// Recovers about 7 % of codewords.
    case low
    /// Recovers about 15 % of codewords; the usual choice for on-screen codes.
    case medium
    /// Recovers about 25 % of codewords.
    case quartile
    /// Recovers about 30 % of codewords.
    case high

    /// The two bits this level contributes to the format information (Table 12): L=01, M=00, Q=11, H=10.
    var formatBits: Int {
        switch self {
        case .low: 1
        case .medium: 0
        case .quartile: 3
        case .high: 2
        }
    }
}
