/// CBOR encoding for the software authenticator (the WebAuthn module only decodes).
import WebAuthn

extension CBORValue {
    /// A minimal CBOR encoder for the test authenticator (shortest-form lengths, definite only).
    public var encoded: [UInt8] {
        func head(_ major: UInt8, _ argument: UInt64) -> [UInt8] {
            let type = major << 5
            switch argument {
            case 0..<24: return [type | UInt8(argument)]
            case 24...0xff: return [type | 24, UInt8(argument)]
            case 0x100...0xffff: return [type | 25] + withUnsafeBytes(of: UInt16(argument).bigEndian, Array.init)
            case 0x10000...0xffff_ffff: return [type | 26] + withUnsafeBytes(of: UInt32(argument).bigEndian, Array.init)
            default: return [type | 27] + withUnsafeBytes(of: argument.bigEndian, Array.init)
            }
        }
        switch self {
        case .unsigned(let value): return head(0, value)
        case .negative(let value): return head(1, value)
        case .bytes(let value): return head(2, UInt64(value.count)) + value
        case .text(let value): return head(3, UInt64(value.utf8.count)) + Array(value.utf8)
        case .array(let items): return head(4, UInt64(items.count)) + items.flatMap(\.encoded)
        case .map(let entries): return head(5, UInt64(entries.count)) + entries.flatMap { $0.key.encoded + $0.value.encoded }
        case .bool(let value): return [value ? 0xf5 : 0xf4]
        case .null: return [0xf6]
        case .undefined: return [0xf7]
        case .simple(let value): return value < 24 ? [0xe0 | value] : [0xf8, value]
        case .float(let value): return [0xfb] + withUnsafeBytes(of: value.bitPattern.bigEndian, Array.init)
        }
    }

    public static func int(_ value: Int64) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }
}

/// Shorthand for building maps in tests.
public func cborMap(_ pairs: [(CBORValue, CBORValue)]) -> CBORValue {
    .map(pairs.map { CBORMapEntry(key: $0.0, value: $0.1) })
}
