#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Builds header lines: RFC 2047 encoded-words for non-ASCII text and RFC 5322 folding.
///
/// A header value is built as a list of words, each starting with its own leading whitespace
/// (the first one gets a single space after the colon). Folding puts CRLF before a word, so that
/// word's whitespace becomes the continuation indent and unfolding restores the text exactly.
enum HeaderEncoding {
    /// RFC 5322 asks for lines of at most 78 characters; the hard limit is 998.
    static let preferredLineLength = 78
    /// Longest plain word kept as is; longer ones are sent as encoded-words, which can be split.
    static let maximumPlainWord = 900
    /// Raw UTF-8 bytes per encoded-word: 39 bytes → 52 base64 chars → 64-char word (RFC 2047 caps
    /// a word at 75), short enough to share its line with a header name like "Reply-To: ".
    static let encodedWordPayload = 39

    /// `Name: value`, folded, ending in CRLF.
    static func line(name: String, words: [String]) -> String {
        var output = name + ":"
        var lineLength = output.utf8.count
        for (index, word) in words.enumerated() {
            let text = index == 0 ? " " + word.drop(while: { $0 == " " }) : word
            let length = text.utf8.count
            if index > 0, lineLength + length > Self.preferredLineLength {
                output += "\r\n"
                lineLength = 0
            }
            output += text
            lineLength += length
        }
        return output + "\r\n"
    }

    /// Words for unstructured text (Subject): plain when it is printable ASCII, else encoded-words.
    static func unstructuredWords(_ text: String) -> [String] {
        if Self.canStayPlain(text) {
            let words = Self.splitKeepingLeadingSpaces(text)
            if words.allSatisfy({ $0.utf8.count <= Self.maximumPlainWord }) {
                return words
            }
        }
        return Self.encodedWords(text)
    }

    /// Words for `Display Name <address>`, or the bare address without a name (and a comma when
    /// more addresses follow).
    static func mailboxWords(_ mailbox: MailAddress, trailingComma: Bool) -> [String] {
        let comma = trailingComma ? "," : ""
        guard let name = mailbox.displayName else {
            return [" \(mailbox.address)\(comma)"]
        }
        return Self.phraseWords(name) + [" <\(mailbox.address)>\(comma)"]
    }

    /// A display name: atoms as they are, otherwise a quoted-string, otherwise encoded-words.
    static func phraseWords(_ name: String) -> [String] {
        if Self.canStayPlain(name) {
            let isAtomPhrase = name.utf8.allSatisfy { $0 == UInt8(ascii: " ") || DotAtom.isAtext($0) }
            if isAtomPhrase {
                let words = Self.splitKeepingLeadingSpaces(name)
                if words.allSatisfy({ $0.utf8.count <= Self.maximumPlainWord }) {
                    return words
                }
            } else if name.utf8.count <= Self.maximumPlainWord {
                let escaped = name.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
                return [" \"\(escaped)\""]
            }
        }
        return Self.encodedWords(name)
    }

    /// `=?UTF-8?B?…?=` words, each holding whole Unicode scalars (RFC 2047 §5: no character may be
    /// split across words), each at most 64 characters.
    static func encodedWords(_ text: String) -> [String] {
        var words: [String] = []
        var chunk: [UInt8] = []
        func flush() {
            guard !chunk.isEmpty else { return }
            words.append(" =?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=")
            chunk.removeAll(keepingCapacity: true)
        }
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > Self.encodedWordPayload {
                flush()
            }
            chunk += bytes
        }
        flush()
        return words
    }

    /// Printable ASCII without anything a decoder could mistake for an encoded-word.
    private static func canStayPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { (0x20...0x7E).contains($0) } && !text.contains("=?")
    }

    /// "a  b c" → ["a", "  b", " c"]: each word keeps the spaces before it.
    private static func splitKeepingLeadingSpaces(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var seenNonSpace = false
        for character in text {
            if character == " ", seenNonSpace {
                words.append(current)
                current = ""
                seenNonSpace = false
            }
            current.append(character)
            if character != " " {
                seenNonSpace = true
            }
        }
        if !current.isEmpty {
            words.append(current)
        }
        return words
    }
}
