import Foundation

/// `application/x-www-form-urlencoded` bodies read by hand (where a form cannot be decoded as a
/// whole: the CSRF check, a provider's form post).
enum URLEncodedForm {
    /// The first value of `name` in an `application/x-www-form-urlencoded` body.
    static func value(of name: String, in body: String) -> String? {
        pairs(in: body).first { $0.name == name }?.value
    }

    /// Every `name=value` pair, decoded, in order.
    static func pairs(in body: String) -> [(name: String, value: String)] {
        body.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    private static func decode(_ text: Substring) -> String {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
    }
}
