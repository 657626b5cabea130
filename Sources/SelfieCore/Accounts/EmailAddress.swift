import Foundation
import SMTP

/// Email addresses: a plausibility check, and the masked form notices show.
public enum EmailAddress {
    /// A light check (one `@`, a dotted domain, no spaces, ≤ 254 bytes): the real test of an
    /// address is mail reaching it, not a regular expression.
    public static func isPlausible(_ email: String) -> Bool {
        guard email.utf8.count <= 254, !email.containsControlCharacters,
            !email.unicodeScalars.contains(where: { $0.properties.isWhitespace })
        else {
            return false
        }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64 else { return false }
        let domain = parts[1]
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty && !$0.hasPrefix("-") && !$0.hasSuffix("-") }
    }

    /// What is wrong with a new address for an account (one typed at sign-up or as a change), nil
    /// when nothing is: plausible, and one Selfie's mail can be sent to — plain ASCII (no
    /// SMTPUTF8; an international domain goes in its `xn--` form), a dot-atom before the `@`.
    /// Signing in still takes any plausible address: accounts made before this check keep theirs.
    public static func problem(with email: String) -> FieldProblem? {
        guard isPlausible(email) else { return .notAnEmailAddress }
        guard email.allSatisfy(\.isASCII) else { return .notASCII }
        return (try? MailAddress(email)) == nil ? .notAnEmailAddress : nil
    }

    /// An address with its local part hidden but the first character (`n•••@example.com`), for
    /// a notice to the old address that must not hand the new one to whoever reads the old mail.
    public static func masked(_ email: String) -> String {
        guard let at = email.lastIndex(of: "@"), at > email.startIndex else { return "•••" }
        return "\(email[email.startIndex])•••\(email[at...])"
    }
}
