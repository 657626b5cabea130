/// Reed–Solomon error-correction codewords over GF(2⁸) with the QR field polynomial x⁸+x⁴+x³+x²+1 (§7.5.2).
struct ReedSolomonEncoder {
    /// Generator polynomial coefficients, highest degree first, leading 1 omitted.
    private let generator: [UInt8]

    init(degree: Int) {
        // g(x) = (x - α⁰)(x - α¹)…(x - α^(degree-1)); subtraction is XOR in GF(2⁸).
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for index in 0..<degree {
                coefficients[index] = Self.multiply(coefficients[index], root)
                if index + 1 < degree { coefficients[index] ^= coefficients[index + 1] }
            }
            root = Self.multiply(root, 0x02)
        }
        generator = coefficients
    }

    /// The remainder of data·x^degree divided by the generator: the EC codewords for one block.
    func remainder(of data: ArraySlice<UInt8>) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ result[0]
            result.removeFirst()
            result.append(0)
            for index in result.indices {
                result[index] ^= Self.multiply(generator[index], factor)
            }
        }
        return result
    }

    /// Carry-less multiplication modulo 0x11D (Russian-peasant form; small symbols need no log tables).
    static func multiply(_ left: UInt8, _ right: UInt8) -> UInt8 {
        var product: UInt16 = 0
        for bit in stride(from: 7, through: 0, by: -1) {
            product = (product << 1) ^ ((product >> 7) * 0x11D)
            product ^= UInt16((right >> UInt8(bit)) & 1) * UInt16(left)
        }
        return UInt8(truncatingIfNeeded: product)
    }
}
