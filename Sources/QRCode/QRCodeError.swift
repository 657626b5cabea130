/// Why a QR symbol could not be built.
public enum QRCodeError: Error, Sendable, Equatable {
    /// The data does not fit in the largest allowed version at the requested error-correction level.
    case dataTooLong(byteCount: Int, maximumByteCount: Int)
    /// A version range reaching outside 1...40.
    case invalidVersionRange(ClosedRange<Int>)
    /// A mask number outside 0...7.
    case invalidMask(Int)
}
