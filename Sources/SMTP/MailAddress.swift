/// An email address with an optional display name. The address is checked so it can't break an
/// SMTP command or a header; control characters (CR, LF, …) in the display name become spaces.
public struct MailAddress: Sendable, Hashable, CustomStringConvertible {
    /// `local@domain`, ASCII only (internationalised addresses need SMTPUTF8, which this client doesn't use).
    public let address: String
    public let displayName: String?

    /// Throws an ``SMTPError`` of kind `.invalidMessage` when `address` is not a plain `local@domain`.
    public init(_ address: String, displayName: String? = nil) throws(SMTPError) {
        try Self.validate(address)
        self.address = address
        let cleanedName = displayName.map(HeaderText.sanitized)
        self.displayName = (cleanedName?.isEmpty ?? true) ? nil : cleanedName
    }

    /// The part after the `@`.
    public var domain: Substring {
        self.address[self.address.index(after: self.address.lastIndex(of: "@")!)...]
    }

    public var description: String {
        guard let displayName else { return "<\(self.address)>" }
        return "\(displayName) <\(self.address)>"
    }

    private static func validate(_ address: String) throws(SMTPError) {
        let quoted = String(reflecting: address.count > 80 ? String(address.prefix(80)) + "…" : address)
        guard address.allSatisfy(\.isASCII) else {
            throw .invalidMessage("The address \(quoted) has non-ASCII characters; internationalised addresses are not supported.")
        }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw .invalidMessage("The address \(quoted) must have exactly one '@'.")
        }
        let local = parts[0]
        let domain = parts[1]
        guard address.utf8.count <= 254, local.utf8.count <= 64 else {
            throw .invalidMessage("The address \(quoted) is longer than an address may be (64 before '@', 254 in all).")
        }
        guard DotAtom.isValid(local) else {
            throw .invalidMessage("The address \(quoted) has a part before '@' that is empty or has characters an address can't have unquoted.")
        }
        guard DomainName.isValid(domain) else {
            throw .invalidMessage("The address \(quoted) has a domain that is not a valid host name.")
        }
    }
}

/// RFC 5322 `dot-atom-text`: atext runs separated by single dots.
enum DotAtom {
    static let atextSymbols = Set("!#$%&'*+-/=?^_`{|}~".utf8)

    static func isAtext(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Self.atextSymbols.contains(byte)
        }
    }

    static func isValid(_ text: some StringProtocol) -> Bool {
        let atoms = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return atoms.allSatisfy { atom in !atom.isEmpty && atom.allSatisfy(Self.isAtext) }
    }
}

/// Host names as RFC 5321 `Domain`: LDH labels of 1 to 63 octets.
enum DomainName {
    static func isValid(_ text: some StringProtocol) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 253 else { return false }
        let labels = Array(text.utf8).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            guard (1...63).contains(label.count), label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-") else {
                return false
            }
            return label.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                    true
                default:
                    false
                }
            }
        }
    }
}
