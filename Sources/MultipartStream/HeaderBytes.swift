/// Optional white space around header values and parameters (spaces and tabs) removed.
func trimmingSpacesAndTabs(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    let isSpace = { (byte: UInt8) in byte == .space || byte == .tab }
    guard let first = bytes.firstIndex(where: { !isSpace($0) }) else { return [] }
    return bytes[first...bytes.lastIndex(where: { !isSpace($0) })!]
}

/// Header text as UTF-8 (what browsers send for non-ASCII file names); invalid bytes become U+FFFD.
func headerText(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self)
}

extension UInt8 {
    static let carriageReturn: UInt8 = 0x0D
    static let lineFeed: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let hyphen: UInt8 = 0x2D
    static let quote: UInt8 = 0x22
    static let backslash: UInt8 = 0x5C
    static let semicolon: UInt8 = 0x3B
    static let equals: UInt8 = 0x3D

    /// RFC 9110 `tchar`: what a header or parameter name is made of.
    var isTokenCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        // ! # $ % & ' * + - . ^ _ ` | ~
        case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E...0x60, 0x7C, 0x7E:
            true
        default:
            false
        }
    }
}
