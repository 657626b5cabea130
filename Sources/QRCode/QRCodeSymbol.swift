/// A finished QR Code symbol (ISO/IEC 18004 model 2): byte-mode data, Reed–Solomon EC, masked.
///
/// Building one is synchronous CPU work of a few milliseconds at most for the sizes used here
/// (a ~300-byte otpauth URI is version 12–13 at level M; most of the time goes into scoring the
/// eight masks), so it is fine to call from an async context; it does no I/O.
public struct QRCodeSymbol: Sendable, Equatable {
    /// Version 1...40; the side is `4 × version + 17` modules.
    public let version: Int
    public let errorCorrectionLevel: QRErrorCorrectionLevel
    /// The data mask 0...7 that was applied.
    public let mask: Int
    /// Modules per side, without the quiet zone.
    public let size: Int
    /// Row-major, `true` = dark.
    private let modules: [Bool]

    /// Encodes the UTF-8 bytes of `text`; see `init(bytes:errorCorrectionLevel:versions:mask:)`.
    public init(
        text: String,
        errorCorrectionLevel: QRErrorCorrectionLevel = .medium,
        versions: ClosedRange<Int> = 1...40,
        mask: Int? = nil
    ) throws(QRCodeError) {
        try self.init(bytes: Array(text.utf8), errorCorrectionLevel: errorCorrectionLevel, versions: versions, mask: mask)
    }

    /// Encodes `bytes` as a single byte-mode segment in the smallest version within `versions` that holds them.
    /// With `mask` nil, all eight masks are scored with the four penalty rules and the lowest wins.
    /// The level is used as given (not raised when the chosen version has room to spare).
    public init(
        bytes: [UInt8],
        errorCorrectionLevel: QRErrorCorrectionLevel = .medium,
        versions: ClosedRange<Int> = 1...40,
        mask: Int? = nil
    ) throws(QRCodeError) {
        guard versions.lowerBound >= 1, versions.upperBound <= 40 else { throw .invalidVersionRange(versions) }
        if let mask, !(0...7).contains(mask) { throw .invalidMask(mask) }
        guard let capacity = versions.lazy
            .map({ SymbolCapacity(version: $0, level: errorCorrectionLevel) })
            .first(where: { bytes.count <= $0.byteModeCapacity })
        else {
            let largest = SymbolCapacity(version: versions.upperBound, level: errorCorrectionLevel)
            throw .dataTooLong(byteCount: bytes.count, maximumByteCount: largest.byteModeCapacity)
        }

        var grid = ModuleGrid(size: capacity.size)
        grid.drawFunctionPatterns(version: capacity.version)
        grid.placeCodewords(Codewords.make(bytes: bytes, capacity: capacity))

        let chosenMask = mask ?? Self.lowestPenaltyMask(grid, level: errorCorrectionLevel)
        grid.applyMask(chosenMask)
        grid.drawFormatInformation(bits: ModuleGrid.formatBits(level: errorCorrectionLevel, mask: chosenMask))

        version = capacity.version
        self.errorCorrectionLevel = errorCorrectionLevel
        self.mask = chosenMask
        size = capacity.size
        modules = grid.dark
    }

    /// `true` if the module at (row, column) is dark; both indices are 0..<size.
    public subscript(row: Int, column: Int) -> Bool { modules[row * size + column] }

    /// The module matrix as rows of `true` = dark, without the quiet zone.
    public var rows: [[Bool]] {
        (0..<size).map { row in Array(modules[(row * size)..<((row + 1) * size)]) }
    }

    /// Scores each mask on the complete symbol (format information included) and keeps the first lowest.
    private static func lowestPenaltyMask(_ unmasked: ModuleGrid, level: QRErrorCorrectionLevel) -> Int {
        var best = (mask: 0, penalty: Int.max)
        for mask in 0..<8 {
            var candidate = unmasked
            candidate.applyMask(mask)
            candidate.drawFormatInformation(bits: ModuleGrid.formatBits(level: level, mask: mask))
            let penalty = MaskPenalty.score(candidate)
            if penalty < best.penalty { best = (mask, penalty) }
        }
        return best.mask
    }
}
