/// The four penalty rules of §7.8.3 (Table 11); the mask with the lowest total is used.
/// Written as single passes without allocation: it runs 8 times per symbol.
enum MaskPenalty {
    static func score(_ grid: ModuleGrid) -> Int {
        let size = grid.size
        let modules = grid.dark
        var total = 0
        for index in 0..<size {
            total += lineScore(modules, start: index * size, stride: 1, count: size)  // row
            total += lineScore(modules, start: index, stride: size, count: size)  // column
        }
        return total + sameColourBlocks(modules, size: size) + darkProportion(modules)
    }

    /// N1 and N3 for one row or column.
    /// N1: each run of 5+ same-coloured modules scores 3, plus 1 per module beyond 5.
    /// N3: 40 for each dark-light-dark³-light-dark run with four light modules before or after it,
    /// found as the 11-bit windows 0000 1011101 and 1011101 0000. Beyond the edge lies the light
    /// quiet zone, so four light modules are shifted in before and after the line.
    private static func lineScore(_ modules: [Bool], start: Int, stride: Int, count: Int) -> Int {
        var score = 0
        var runColour = modules[start]
        var runLength = 0
        var window = 0
        for position in -4..<(count + 4) {
            let isDark = position >= 0 && position < count && modules[start + position * stride]
            if position >= 0 && position < count {
                if isDark == runColour {
                    runLength += 1
                } else {
                    if runLength >= 5 { score += runLength - 2 }
                    runColour = isDark
                    runLength = 1
                }
            }
            window = (window << 1 | (isDark ? 1 : 0)) & 0x7FF
            if position >= 6 && (window == 0b000_0101_1101 || window == 0b101_1101_0000) { score += 40 }
        }
        if runLength >= 5 { score += runLength - 2 }
        return score
    }

    /// N2: 3 points for every 2×2 block of one colour (overlapping blocks each count).
    private static func sameColourBlocks(_ modules: [Bool], size: Int) -> Int {
        var score = 0
        for row in 0..<(size - 1) {
            for column in 0..<(size - 1) {
                let index = row * size + column
                let colour = modules[index]
                if modules[index + 1] == colour, modules[index + size] == colour, modules[index + size + 1] == colour {
                    score += 3
                }
            }
        }
        return score
    }

    /// N4: 10 points for every full 5 % the dark share deviates from 50 %.
    private static func darkProportion(_ modules: [Bool]) -> Int {
        let total = modules.count
        var darkCount = 0
        for isDark in modules where isDark { darkCount += 1 }
        return abs(darkCount * 20 - total * 10) / total * 10
    }
}
