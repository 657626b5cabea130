/// Turns bytes into the final interleaved codeword sequence of a symbol (§7.4 data encoding, §7.6 interleaving).
enum Codewords {
    /// Byte-mode segment, terminator, padding, Reed–Solomon blocks, interleaved.
    static func make(bytes: [UInt8], capacity: SymbolCapacity) -> [UInt8] {
        let data = dataCodewords(bytes: bytes, capacity: capacity)
        return interleave(data: data, capacity: capacity)
    }

    /// Mode indicator 0100, character count, the bytes, then terminator and pad codewords up to capacity.
    static func dataCodewords(bytes: [UInt8], capacity: SymbolCapacity) -> [UInt8] {
        var bits = BitWriter()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: capacity.byteModeCountBits)
        for byte in bytes { bits.append(Int(byte), count: 8) }

        let capacityBits = capacity.dataCodewords * 8
        bits.append(0, count: min(4, capacityBits - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        // §7.4.10: alternate 11101100 and 00010001 until the data capacity is filled.
        var padIndex = 0
        while codewords.count < capacity.dataCodewords {
            codewords.append(padIndex % 2 == 0 ? 0xEC : 0x11)
            padIndex += 1
        }
        return codewords
    }

    /// Splits data into blocks, appends each block's EC codewords, then reads column by column across blocks.
    private static func interleave(data: [UInt8], capacity: SymbolCapacity) -> [UInt8] {
        let encoder = ReedSolomonEncoder(degree: capacity.errorCorrectionCodewordsPerBlock)
        var dataBlocks: [ArraySlice<UInt8>] = []
        var errorBlocks: [[UInt8]] = []
        var start = 0
        for length in capacity.dataCodewordsPerBlock {
            let block = data[start..<(start + length)]
            dataBlocks.append(block)
            errorBlocks.append(encoder.remainder(of: block))
            start += length
        }

        var result: [UInt8] = []
        result.reserveCapacity(capacity.totalCodewords)
        let longest = dataBlocks.map(\.count).max() ?? 0
        for column in 0..<longest {
            for block in dataBlocks where column < block.count {
                result.append(block[block.startIndex + column])
            }
        }
        for column in 0..<capacity.errorCorrectionCodewordsPerBlock {
            for block in errorBlocks { result.append(block[column]) }
        }
        return result
    }
}

/// Big-endian bit accumulator.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    mutating func append(_ value: Int, count bitCount: Int) {
        for shift in stride(from: bitCount - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> shift) & 1 == 1 {
                bytes[bytes.count - 1] |= 0x80 >> UInt8(count % 8)
            }
            count += 1
        }
    }
}
