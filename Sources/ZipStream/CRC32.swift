/// CRC-32 as used by ZIP (reflected polynomial 0xEDB88320), computed slicing-by-16: sixteen
/// independent table look-ups per 16 input bytes instead of a serial chain of one per byte.
struct CRC32: Sendable {
    private var state: UInt32 = 0xFFFF_FFFF

    /// The checksum of everything fed so far.
    var value: UInt32 { ~state }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let start = state
        state = Self.tables.withUnsafeBufferPointer { table in
            Self.fold(start, base, bytes.count, table.baseAddress!)
        }
    }

    /// The hot loop. Table offsets are spelled out (slice k starts at k × 256) and arithmetic is
    /// wrapping, so the optimiser is left with plain loads and XORs.
    private static func fold(_ start: UInt32, _ base: UnsafeRawPointer, _ count: Int, _ t: UnsafePointer<UInt32>) -> UInt32 {
        var crc = start
        var position = 0
        while count &- position >= 16 {
            let a = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt32.self)) ^ crc
            let b = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: position &+ 4, as: UInt32.self))
            let c = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: position &+ 8, as: UInt32.self))
            let d = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: position &+ 12, as: UInt32.self))
            crc = t[3840 &+ Int(a & 0xFF)] ^ t[3584 &+ Int((a >> 8) & 0xFF)]
                ^ t[3328 &+ Int((a >> 16) & 0xFF)] ^ t[3072 &+ Int(a >> 24)]
                ^ t[2816 &+ Int(b & 0xFF)] ^ t[2560 &+ Int((b >> 8) & 0xFF)]
                ^ t[2304 &+ Int((b >> 16) & 0xFF)] ^ t[2048 &+ Int(b >> 24)]
                ^ t[1792 &+ Int(c & 0xFF)] ^ t[1536 &+ Int((c >> 8) & 0xFF)]
                ^ t[1280 &+ Int((c >> 16) & 0xFF)] ^ t[1024 &+ Int(c >> 24)]
                ^ t[768 &+ Int(d & 0xFF)] ^ t[512 &+ Int((d >> 8) & 0xFF)]
                ^ t[256 &+ Int((d >> 16) & 0xFF)] ^ t[Int(d >> 24)]
            position &+= 16
        }
        while position < count {
            crc = t[Int((crc ^ UInt32(base.load(fromByteOffset: position, as: UInt8.self))) & 0xFF)] ^ (crc >> 8)
            position &+= 1
        }
        return crc
    }

    /// Table k maps a byte to its CRC contribution k bytes further back; table 0 is the classic one.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 16 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            tables[byte] = crc
        }
        for slice in 1..<16 {
            for byte in 0..<256 {
                let previous = tables[(slice - 1) * 256 + byte]
                tables[slice * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()
}
