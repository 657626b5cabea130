/// One decoded CBOR data item (RFC 8949), restricted to what WebAuthn carries: no tags.
public enum CBORValue: Sendable, Hashable {
    case unsigned(UInt64)
    /// Major type 1: the value is `-1 - n`, which can be below `Int64.min`, so `n` is kept raw.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBORValue])
    /// Map entries in encoded order; the decoder has already refused duplicate keys.
    case map([CBORMapEntry])
    case bool(Bool)
    case null
    case undefined
    /// Unassigned simple values (0–19, 32–255), kept as their number.
    case simple(UInt8)
    case float(Double)

    /// The integer value when it fits an `Int64` (COSE labels and algorithm ids).
    var int64: Int64? {
        switch self {
        case .unsigned(let value): return value <= UInt64(Int64.max) ? Int64(value) : nil
        case .negative(let value): return value <= UInt64(Int64.max) ? -1 - Int64(value) : nil
        default: return nil
        }
    }

    var bytes: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    var mapEntries: [CBORMapEntry]? {
        if case .map(let entries) = self { return entries }
        return nil
    }

    /// The value under an integer key of a map (COSE keys use integer labels).
    subscript(intKey key: Int64) -> CBORValue? {
        mapEntries?.first { $0.key.int64 == key }?.value
    }

    /// The value under a text key of a map (the attestation object uses text keys).
    subscript(textKey key: String) -> CBORValue? {
        mapEntries?.first { $0.key.text == key }?.value
    }
}

/// One key/value pair of a CBOR map.
public struct CBORMapEntry: Sendable, Hashable {
    public let key: CBORValue
    public let value: CBORValue

    public init(key: CBORValue, value: CBORValue) {
        self.key = key
        self.value = value
    }
}
