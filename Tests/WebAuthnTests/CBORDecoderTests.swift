import Testing
@testable import WebAuthn
import WebAuthnTestSupport

@Suite("CBOR decoder (RFC 8949)")
struct CBORDecoderTests {
    /// RFC 8949 Appendix A examples within the supported subset (no tags, no indefinite lengths).
    static let appendixA: [(String, CBORValue)] = [
        ("00", .unsigned(0)), ("01", .unsigned(1)), ("0a", .unsigned(10)), ("17", .unsigned(23)),
        ("1818", .unsigned(24)), ("1819", .unsigned(25)), ("1864", .unsigned(100)), ("1903e8", .unsigned(1000)),
        ("1a000f4240", .unsigned(1_000_000)), ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)),
        ("1bffffffffffffffff", .unsigned(18_446_744_073_709_551_615)),
        ("3bffffffffffffffff", .negative(18_446_744_073_709_551_615)), // -18446744073709551616
        ("20", .int(-1)), ("29", .int(-10)), ("3863", .int(-100)), ("3903e7", .int(-1000)),
        ("f90000", .float(0.0)), ("f93c00", .float(1.0)), ("fb3ff199999999999a", .float(1.1)),
        ("f93e00", .float(1.5)), ("f97bff", .float(65504.0)), ("fa47c35000", .float(100_000.0)),
        ("fa7f7fffff", .float(3.4028234663852886e+38)), ("fb7e37e43c8800759c", .float(1.0e+300)),
        ("f90001", .float(5.960464477539063e-8)), ("f90400", .float(0.00006103515625)),
        ("f9c400", .float(-4.0)), ("fbc010666666666666", .float(-4.1)),
        ("f97c00", .float(.infinity)), ("f9fc00", .float(-.infinity)),
        ("fa7f800000", .float(.infinity)), ("faff800000", .float(-.infinity)),
        ("fb7ff0000000000000", .float(.infinity)), ("fbfff0000000000000", .float(-.infinity)),
        ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null), ("f7", .undefined),
        ("f0", .simple(16)), ("f8ff", .simple(255)),
        ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])),
        ("60", .text("")), ("6161", .text("a")), ("6449455446", .text("IETF")),
        ("62225c", .text("\"\\")), ("62c3bc", .text("\u{00fc}")), ("63e6b0b4", .text("\u{6c34}")),
        ("64f0908591", .text("\u{10151}")),
        ("80", .array([])), ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        ("8301820203820405", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
        ("98190102030405060708090a0b0c0d0e0f101112131415161718181819", .array((1...25).map { .unsigned(UInt64($0)) })),
        ("a0", cborMap([])),
        ("a201020304", cborMap([(.unsigned(1), .unsigned(2)), (.unsigned(3), .unsigned(4))])),
        ("a26161016162820203", cborMap([(.text("a"), .unsigned(1)), (.text("b"), .array([.unsigned(2), .unsigned(3)]))])),
        ("826161a161626163", .array([.text("a"), cborMap([(.text("b"), .text("c"))])])),
        ("a56161614161626142616361436164614461656145", cborMap([
            (.text("a"), .text("A")), (.text("b"), .text("B")), (.text("c"), .text("C")),
            (.text("d"), .text("D")), (.text("e"), .text("E")),
        ])),
    ]

    @Test("Appendix A examples decode to the listed values", arguments: appendixA)
    func appendixAExample(encoded: String, expected: CBORValue) throws {
        #expect(try CBORDecoder.decode(hex(encoded)) == expected)
    }

    @Test("Appendix A: -0.0 keeps its sign and the NaN encodings decode to NaN")
    func signedZeroAndNaN() throws {
        guard case .float(let negativeZero) = try CBORDecoder.decode(hex("f98000")) else { Issue.record("not a float"); return }
        #expect(negativeZero == 0 && negativeZero.sign == .minus)
        for encoded in ["f97e00", "fa7fc00000", "fb7ff8000000000000"] {
            guard case .float(let value) = try CBORDecoder.decode(hex(encoded)) else { Issue.record("not a float"); continue }
            #expect(value.isNaN, "\(encoded)")
        }
    }

    @Test("Appendix A integer helpers: Int64 only when it fits")
    func int64Helper() throws {
        #expect(try CBORDecoder.decode(hex("3903e7")).int64 == -1000)
        #expect(try CBORDecoder.decode(hex("1bffffffffffffffff")).int64 == nil)
        #expect(try CBORDecoder.decode(hex("3bffffffffffffffff")).int64 == nil)
        #expect(try CBORDecoder.decode(hex("3b7fffffffffffffff")).int64 == Int64.min)
    }

    /// Appendix A examples outside the subset: tags and indefinite lengths are refused, not misread.
    static let unsupported: [(String, CBORError)] = [
        ("c074323031332d30332d32315432303a30343a30305a", .tagsNotSupported),
        ("c11a514b67b0", .tagsNotSupported),
        ("c249010000000000000000", .tagsNotSupported),  // bignum 2^64
        ("c349010000000000000000", .tagsNotSupported),
        ("d74401020304", .tagsNotSupported),
        ("d818456449455446", .tagsNotSupported),
        ("d82076687474703a2f2f7777772e6578616d706c652e636f6d", .tagsNotSupported),
        ("5f42010243030405ff", .indefiniteLengthNotSupported),
        ("7f657374726561646d696e67ff", .indefiniteLengthNotSupported),
        ("9fff", .indefiniteLengthNotSupported),
        ("9f018202039f0405ffff", .indefiniteLengthNotSupported),
        ("83018202039f0405ff", .indefiniteLengthNotSupported),
        ("bf61610161629f0203ffff", .indefiniteLengthNotSupported),
        ("826161bf61626163ff", .indefiniteLengthNotSupported),
    ]

    @Test("Appendix A examples with tags or indefinite lengths are refused", arguments: unsupported)
    func refusesUnsupported(encoded: String, error: CBORError) {
        #expect(throws: error) { try CBORDecoder.decode(hex(encoded)) }
    }

    /// Not-well-formed inputs from RFC 8949 Appendix F, plus our own strictness rules.
    static let malformed: [(String, CBORError)] = [
        // End of input in a head.
        ("18", .truncated), ("1901", .truncated), ("1a010203", .truncated), ("1b01020304050607", .truncated),
        ("38", .truncated), ("58", .truncated), ("78", .truncated), ("98", .truncated), ("b8", .truncated),
        ("f8", .truncated), ("f900", .truncated), ("fa0000", .truncated), ("fb000000", .truncated),
        // Definite-length strings/containers with too little data: refused before allocating.
        ("41", .lengthTooLarge), ("61", .lengthTooLarge), ("5affffffff00", .lengthTooLarge),
        ("5bffffffffffffffff010203", .lengthTooLarge), ("7affffffff00", .lengthTooLarge),
        ("9bffffffffffffffff00", .lengthTooLarge),
        ("81", .lengthTooLarge), ("818181818181818181", .lengthTooLarge), ("8200", .lengthTooLarge),
        ("a1", .lengthTooLarge), ("a20102", .lengthTooLarge), ("a100", .lengthTooLarge), ("a2000000", .lengthTooLarge),
        ("a20102031a0000", .truncated), ("a201028100", .truncated),
        // Reserved additional information values.
        ("1c", .reservedAdditionalInformation), ("1d", .reservedAdditionalInformation), ("1e", .reservedAdditionalInformation),
        ("3c", .reservedAdditionalInformation), ("5d", .reservedAdditionalInformation), ("7e", .reservedAdditionalInformation),
        ("9c", .reservedAdditionalInformation), ("bd", .reservedAdditionalInformation), ("fc", .reservedAdditionalInformation),
        // Two-byte encodings of simple values below 32.
        ("f800", .badSimpleValue), ("f818", .badSimpleValue), ("f81f", .badSimpleValue),
        // Break codes without an indefinite-length item.
        ("ff", .unexpectedBreak), ("81ff", .unexpectedBreak), ("8200ff", .unexpectedBreak), ("a1ff00", .unexpectedBreak),
        ("a100ff", .unexpectedBreak),
        // Invalid UTF-8 in a text string (RFC 8949 §3.1 requires valid UTF-8).
        ("62c328", .invalidUTF8), ("61ff", .invalidUTF8), ("63eda080", .invalidUTF8), // lone surrogate
        // Duplicate map keys (RFC 8949 §5.6: not valid; a parser must not pick one silently).
        ("a2010201 03", .duplicateMapKey), ("a2616101616102", .duplicateMapKey),
        // Bytes after the one item.
        ("0000", .trailingBytes(1)), ("a0ffff", .trailingBytes(2)),
    ]

    @Test("malformed inputs are refused with the right reason", arguments: malformed)
    func refusesMalformed(encoded: String, error: CBORError) {
        #expect(throws: error) { try CBORDecoder.decode(hex(encoded)) }
    }

    @Test("nesting deeper than the limit is refused; at the limit it decodes")
    func depthLimit() throws {
        let limit = CBORDecoder.defaultMaxDepth
        let atLimit = [UInt8](repeating: 0x81, count: limit) + [0x00]
        _ = try CBORDecoder.decode(atLimit)
        let tooDeep = [UInt8](repeating: 0x81, count: limit + 1) + [0x00]
        #expect(throws: CBORError.tooDeep) { try CBORDecoder.decode(tooDeep) }
        // Deeply nested maps too, and a hostile 100 000-deep input fails fast without recursion blow-up.
        #expect(throws: CBORError.tooDeep) { try CBORDecoder.decode([UInt8](repeating: 0xa1, count: 100_000)) }
    }

    @Test("decodePrefix reports how many bytes the first item used")
    func prefix() throws {
        // A COSE-like map followed by an extensions map, as in authenticator data.
        let bytes = hex("a2 01 02 03 26  a1 6b 6372656450726f74656374 02")
        let (first, consumed) = try CBORDecoder.decodePrefix(bytes[...])
        #expect(consumed == 5)
        #expect(first == cborMap([(.unsigned(1), .unsigned(2)), (.unsigned(3), .int(-7))]))
        let (second, secondConsumed) = try CBORDecoder.decodePrefix(bytes[consumed...])
        #expect(secondConsumed == bytes.count - consumed)
        #expect(second[textKey: "credProtect"] == .unsigned(2))
    }

    @Test("non-shortest heads are well-formed and accepted (RFC 8949 §3: preferred, not required)")
    func nonShortest() throws {
        #expect(try CBORDecoder.decode(hex("1800")) == .unsigned(0))
        #expect(try CBORDecoder.decode(hex("590002 0102")) == .bytes([1, 2]))
    }

    @Test("the test encoder round-trips through the decoder")
    func encoderRoundTrip() throws {
        for (_, value) in Self.appendixA {
            #expect(try CBORDecoder.decode(value.encoded) == value)
        }
    }
}
