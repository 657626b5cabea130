/// The square of modules being built, with a second layer marking function patterns so data and masks skip them.
struct ModuleGrid {
    let size: Int
    private(set) var dark: [Bool]
    private(set) var isFunction: [Bool]

    init(size: Int) {
        self.size = size
        dark = Array(repeating: false, count: size * size)
        isFunction = Array(repeating: false, count: size * size)
    }

    subscript(row: Int, column: Int) -> Bool { dark[row * size + column] }

    mutating func setFunction(row: Int, column: Int, dark isDark: Bool) {
        dark[row * size + column] = isDark
        isFunction[row * size + column] = true
    }

    // MARK: Function patterns (§6.3)

    /// Timing lines, finders with separators, alignment patterns, and the version blocks from version 7.
    /// Format areas are reserved here and filled in by `drawFormatInformation` once the mask is known.
    mutating func drawFunctionPatterns(version: Int) {
        for index in 0..<size {
            setFunction(row: 6, column: index, dark: index % 2 == 0)
            setFunction(row: index, column: 6, dark: index % 2 == 0)
        }
        drawFinder(centerRow: 3, centerColumn: 3)
        drawFinder(centerRow: 3, centerColumn: size - 4)
        drawFinder(centerRow: size - 4, centerColumn: 3)

        let centres = Self.alignmentCentres(version: version)
        let last = centres.count - 1
        for (rowIndex, row) in centres.enumerated() {
            for (columnIndex, column) in centres.enumerated() {
                // The three centres that fall on finder patterns are skipped.
                let onFinder = (rowIndex == 0 && columnIndex == 0)
                    || (rowIndex == 0 && columnIndex == last)
                    || (rowIndex == last && columnIndex == 0)
                if !onFinder { drawAlignment(centerRow: row, centerColumn: column) }
            }
        }
        drawFormatInformation(bits: 0)
        drawVersionInformation(version: version)
    }

    /// 7×7 finder plus its one-module light separator, clipped at the symbol edge.
    private mutating func drawFinder(centerRow: Int, centerColumn: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let row = centerRow + dy, column = centerColumn + dx
                guard (0..<size).contains(row), (0..<size).contains(column) else { continue }
                let ring = max(abs(dx), abs(dy))
                setFunction(row: row, column: column, dark: ring != 2 && ring != 4)
            }
        }
    }

    private mutating func drawAlignment(centerRow: Int, centerColumn: Int) {
        for dy in -2...2 {
            for dx in -2...2 {
                setFunction(row: centerRow + dy, column: centerColumn + dx, dark: max(abs(dx), abs(dy)) != 1)
            }
        }
    }

    /// Row/column coordinates of alignment-pattern centres (Annex E): first at 6, last at size−7,
    /// the rest evenly spaced by an even step (version 32 is the one exception to the formula).
    static func alignmentCentres(version: Int) -> [Int] {
        guard version > 1 else { return [] }
        let count = version / 7 + 2
        let step = version == 32 ? 26 : (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        var centres = [6]
        var position = version * 4 + 17 - 7
        var tail: [Int] = []
        for _ in 0..<(count - 1) {
            tail.append(position)
            position -= step
        }
        centres.append(contentsOf: tail.reversed())
        return centres
    }

    // MARK: Format and version information (§7.9, §7.10)

    /// 15-bit format word: EC level and mask, BCH(15,5) protected, XORed with 101010000010010.
    static func formatBits(level: QRErrorCorrectionLevel, mask: Int) -> Int {
        let data = level.formatBits << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        return (data << 10 | remainder & 0x3FF) ^ 0x5412
    }

    /// Writes both copies of the format word, plus the always-dark module beside the lower-left finder.
    mutating func drawFormatInformation(bits: Int) {
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        // Copy around the upper-left finder: down column 8, then leftwards along row 8, skipping timing.
        for index in 0...5 { setFunction(row: index, column: 8, dark: bit(index)) }
        setFunction(row: 7, column: 8, dark: bit(6))
        setFunction(row: 8, column: 8, dark: bit(7))
        setFunction(row: 8, column: 7, dark: bit(8))
        for index in 9..<15 { setFunction(row: 8, column: 14 - index, dark: bit(index)) }
        // Second copy, split between the upper-right and lower-left finders.
        for index in 0..<8 { setFunction(row: 8, column: size - 1 - index, dark: bit(index)) }
        for index in 8..<15 { setFunction(row: size - 15 + index, column: 8, dark: bit(index)) }
        setFunction(row: size - 8, column: 8, dark: true)
    }

    /// 18-bit version word, BCH(18,6) protected, in two 6×3 blocks (versions 7 and up).
    private mutating func drawVersionInformation(version: Int) {
        guard version >= 7 else { return }
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder & 0xFFF
        for index in 0..<18 {
            let isDark = (bits >> index) & 1 == 1
            let near = size - 11 + index % 3, far = index / 3
            setFunction(row: far, column: near, dark: isDark)
            setFunction(row: near, column: far, dark: isDark)
        }
    }

    // MARK: Data (§7.7.3) and masking (§7.8)

    /// Places codeword bits in two-column strips from the lower right, zig-zagging up and down,
    /// skipping function modules and the vertical timing column. Leftover remainder bits stay light.
    mutating func placeCodewords(_ codewords: [UInt8]) {
        let totalBits = codewords.count * 8
        var bitIndex = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for step in 0..<size {
                let row = upward ? size - 1 - step : step
                for column in stride(from: right, through: right - 1, by: -1)
                where !isFunction[row * size + column] && bitIndex < totalBits {
                    let byte = codewords[bitIndex >> 3]
                    dark[row * size + column] = (byte >> UInt8(7 - (bitIndex & 7))) & 1 == 1
                    bitIndex += 1
                }
            }
            right -= 2
        }
    }

    /// XORs a data mask over every non-function module; applying the same mask twice undoes it.
    mutating func applyMask(_ mask: Int) {
        let size = self.size
        isFunction.withUnsafeBufferPointer { isFunction in
            dark.withUnsafeMutableBufferPointer { dark in
                for row in 0..<size {
                    for column in 0..<size where !isFunction[row * size + column] {
                        if Self.maskInverts(mask, row: row, column: column) { dark[row * size + column].toggle() }
                    }
                }
            }
        }
    }

    /// The eight mask conditions of Table 10 (i = row, j = column).
    static func maskInverts(_ mask: Int, row i: Int, column j: Int) -> Bool {
        switch mask {
        case 0: (i + j) % 2 == 0
        case 1: i % 2 == 0
        case 2: j % 3 == 0
        case 3: (i + j) % 3 == 0
        case 4: (i / 2 + j / 3) % 2 == 0
        case 5: (i * j) % 2 + (i * j) % 3 == 0
        case 6: ((i * j) % 2 + (i * j) % 3) % 2 == 0
        default: ((i + j) % 2 + (i * j) % 3) % 2 == 0
        }
    }
}
