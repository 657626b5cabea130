/// Codeword budget of one version at one error-correction level (ISO/IEC 18004 Table 9).
struct SymbolCapacity {
    let version: Int
    let level: QRErrorCorrectionLevel

    /// Side length in modules: 21 for version 1, growing by 4 per version.
    var size: Int { version * 4 + 17 }

    /// All codewords (data + error correction) the symbol holds.
    var totalCodewords: Int { Self.rawDataModules(version: version) / 8 }

    var errorCorrectionCodewordsPerBlock: Int {
        Self.eccCodewordsPerBlock[level.rawValue][version]
    }

    var blockCount: Int { Self.blockCounts[level.rawValue][version] }

    var dataCodewords: Int { totalCodewords - errorCorrectionCodewordsPerBlock * blockCount }

    /// Data codewords per block, in block order: the shorter blocks come first (§7.5.2).
    var dataCodewordsPerBlock: [Int] {
        let shortBlockData = totalCodewords / blockCount - errorCorrectionCodewordsPerBlock
        let longBlocks = totalCodewords % blockCount
        return (0..<blockCount).map { $0 < blockCount - longBlocks ? shortBlockData : shortBlockData + 1 }
    }

    /// Bits in the character-count field of a byte-mode segment (Table 3).
    var byteModeCountBits: Int { version <= 9 ? 8 : 16 }

    /// The most bytes a single byte-mode segment can carry in this symbol.
    var byteModeCapacity: Int { (dataCodewords * 8 - 4 - byteModeCountBits) / 8 }

    /// Modules left for codewords once the function patterns and format/version areas are taken.
    /// Derived from the pattern geometry rather than tabulated; it includes the 0–7 remainder bits.
    static func rawDataModules(version: Int) -> Int {
        var modules = (16 * version + 128) * version + 64
        if version >= 2 {
            let alignmentPerSide = version / 7 + 2
            modules -= (25 * alignmentPerSide - 10) * alignmentPerSide - 55
            if version >= 7 { modules -= 36 }
        }
        return modules
    }

    // Rows: L, M, Q, H (QRErrorCorrectionLevel.rawValue); column 0 is unused so the index is the version.
    private static let eccCodewordsPerBlock: [[Int]] = [
        [0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
         28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
         26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        [0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
         28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
         30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]

    private static let blockCounts: [[Int]] = [
        [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
         8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
         17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        [0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
         23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        [0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
         25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]
}
