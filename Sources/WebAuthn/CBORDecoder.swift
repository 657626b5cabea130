/// Why CBOR bytes were refused.
enum CBORError: Error, Sendable, Equatable {
    case truncated
    case indefiniteLengthNotSupported
    case tagsNotSupported
    case reservedAdditionalInformation
    /// A `0xff` break code outside an indefinite-length item.
    case unexpectedBreak
    /// Simple values below 32 must use the one-byte form (RFC 8949 §3.3).
    case badSimpleValue
    case invalidUTF8
    case duplicateMapKey
    case tooDeep
    case lengthTooLarge
    case trailingBytes(Int)
}

/// A strict decoder for definite-length CBOR (RFC 8949) as found in WebAuthn structures.
///
/// Refuses indefinite lengths, tags, reserved encodings, invalid UTF-8 text and duplicate map
/// keys. Work and memory are bounded by the input: a declared length or element count larger
/// than the bytes left is refused before anything is allocated, and nesting stops at `maxDepth`.
struct CBORDecoder {
    static let defaultMaxDepth = 16

    /// Decodes exactly one item that must fill `bytes` completely.
    static func decode(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(CBORError) -> CBORValue {
        let (value, consumed) = try decodePrefix(bytes[...], maxDepth: maxDepth)
        guard consumed == bytes.count else { throw .trailingBytes(bytes.count - consumed) }
        return value
    }

    /// Decodes the first item of `bytes` and tells how many bytes it took: authenticator data
    /// embeds a COSE key followed directly by more CBOR, with no length in front.
    static func decodePrefix(_ bytes: ArraySlice<UInt8>, maxDepth: Int = defaultMaxDepth) throws(CBORError) -> (value: CBORValue, consumed: Int) {
        var decoder = CBORDecoder(bytes: bytes, maxDepth: maxDepth)
        let value = try decoder.readItem(depth: 0)
        return (value, decoder.position - bytes.startIndex)
    }

    private let bytes: ArraySlice<UInt8>
    private let maxDepth: Int
    private var position: Int

    private init(bytes: ArraySlice<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.position = bytes.startIndex
    }

    private var remaining: Int { bytes.endIndex - position }

    private mutating func readByte() throws(CBORError) -> UInt8 {
        guard position < bytes.endIndex else { throw .truncated }
        defer { position += 1 }
        return bytes[position]
    }

    private mutating func readBytes(_ count: Int) throws(CBORError) -> ArraySlice<UInt8> {
        guard count <= remaining else { throw .truncated }
        defer { position += count }
        return bytes[position..<position + count]
    }

    private mutating func readUInt(byteCount: Int) throws(CBORError) -> UInt64 {
        var value: UInt64 = 0
        for byte in try readBytes(byteCount) {
            value = (value << 8) | UInt64(byte)
        }
        return value
    }

    /// The argument that follows the initial byte (RFC 8949 §3): a value, a length or a count.
    private mutating func readArgument(_ additional: UInt8) throws(CBORError) -> UInt64 {
        switch additional {
        case 0..<24: return UInt64(additional)
        case 24: return try readUInt(byteCount: 1)
        case 25: return try readUInt(byteCount: 2)
        case 26: return try readUInt(byteCount: 4)
        case 27: return try readUInt(byteCount: 8)
        case 31: throw .indefiniteLengthNotSupported
        default: throw .reservedAdditionalInformation
        }
    }

    /// A length or element count, refused if it cannot possibly fit in what is left
    /// (every element takes at least one byte), so a hostile count never drives an allocation.
    private mutating func readLength(_ additional: UInt8, bytesPerElement: UInt64 = 1) throws(CBORError) -> Int {
        let length = try readArgument(additional)
        let (needed, overflow) = length.multipliedReportingOverflow(by: bytesPerElement)
        guard !overflow, needed <= UInt64(remaining) else { throw .lengthTooLarge }
        return Int(length)
    }

    private mutating func readItem(depth: Int) throws(CBORError) -> CBORValue {
        guard depth <= maxDepth else { throw .tooDeep }
        let initial = try readByte()
        let majorType = initial >> 5
        let additional = initial & 0x1f
        switch majorType {
        case 0:
            return .unsigned(try readArgument(additional))
        case 1:
            return .negative(try readArgument(additional))
        case 2:
            return .bytes(Array(try readBytes(try readLength(additional))))
        case 3:
            let raw = try readBytes(try readLength(additional))
            guard let text = String(validating: raw, as: UTF8.self) else { throw .invalidUTF8 }
            return .text(text)
        case 4:
            let count = try readLength(additional)
            var items: [CBORValue] = []
            // A declared count only says how much could follow: nested ones would reserve it at
            // every level before the input runs out (WebAuthn's structures hold a few items).
            items.reserveCapacity(min(count, 64))
            for _ in 0..<count {
                items.append(try readItem(depth: depth + 1))
            }
            return .array(items)
        case 5:
            let count = try readLength(additional, bytesPerElement: 2)  // a key and a value
            var entries: [CBORMapEntry] = []
            entries.reserveCapacity(min(count, 64))
            var seenKeys = Set<CBORValue>()
            for _ in 0..<count {
                let key = try readItem(depth: depth + 1)
                guard seenKeys.insert(key).inserted else { throw .duplicateMapKey }
                entries.append(CBORMapEntry(key: key, value: try readItem(depth: depth + 1)))
            }
            return .map(entries)
        case 6:
            throw .tagsNotSupported
        default:
            return try readSimpleOrFloat(additional)
        }
    }

    private mutating func readSimpleOrFloat(_ additional: UInt8) throws(CBORError) -> CBORValue {
        switch additional {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 0..<20: return .simple(additional)
        case 24:
            let value = try readByte()
            guard value >= 32 else { throw .badSimpleValue }
            return .simple(value)
        case 25: return .float(Self.halfToDouble(UInt16(try readUInt(byteCount: 2))))
        case 26: return .float(Double(Float(bitPattern: UInt32(try readUInt(byteCount: 4)))))
        case 27: return .float(Double(bitPattern: try readUInt(byteCount: 8)))
        case 31: throw .unexpectedBreak
        default: throw .reservedAdditionalInformation
        }
    }

    /// IEEE 754 half precision, converted by hand because `Float16` is missing on some platforms.
    private static func halfToDouble(_ half: UInt16) -> Double {
        let exponent = Int((half >> 10) & 0x1f)
        let mantissa = Double(half & 0x3ff)
        let magnitude: Double
        switch exponent {
        case 0: magnitude = mantissa * 0x1p-24
        case 31: magnitude = mantissa == 0 ? .infinity : .nan
        default: magnitude = (mantissa + 1024) * Double(sign: .plus, exponent: exponent - 25, significand: 1)
        }
        return half & 0x8000 != 0 ? -magnitude : magnitude
    }
}
