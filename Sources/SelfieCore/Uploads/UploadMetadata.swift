import Foundation

/// tus's `Upload-Metadata`: comma-separated `key base64(value)` pairs (a key alone has no value).
/// Selfie reads `filename`, `title` and `album_id`; other keys are kept out.
public struct UploadMetadata: Sendable, Equatable {
    public var filename = ""
    public var title = ""
    public var albumID: String?

    public init(filename: String = "", title: String = "", albumID: String? = nil) {
        self.filename = filename
        self.title = title
        self.albumID = albumID
    }

    public enum Problem: Error, Equatable {
        /// A pair whose key is empty or has characters other than printable ASCII without spaces
        /// and commas, or whose value is not base64 of UTF-8 text.
        case malformed(String)
        case duplicateKey(String)
    }

    /// Parses the header (absent: no metadata).
    public init(header: String?) throws(Problem) {
        guard let header, !header.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        var seen: Set<String> = []
        for pair in header.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), let key = parts.first, !key.isEmpty,
                key.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "," })
            else { throw .malformed(String(pair)) }
            guard seen.insert(String(key)).inserted else { throw .duplicateKey(String(key)) }
            var value = ""
            if parts.count == 2 {
                guard let data = Data(base64Encoded: String(parts[1])), let text = String(data: data, encoding: .utf8) else {
                    throw .malformed(String(pair))
                }
                value = text
            }
            switch key {
            case "filename":
                // Kept only to be echoed on HEAD: a name, not a document.
                guard value.unicodeScalars.count <= 255, !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                    throw .malformed(String(pair))
                }
                filename = value
            case "title": title = value  // checked as every caption is, when the upload is created
            case "album_id":
                // Public ids are base64url.
                guard value.count <= 64, value.unicodeScalars.allSatisfy({ Self.idCharacters.contains($0) }) else { throw .malformed(String(pair)) }
                albumID = value.isEmpty ? nil : value
            default: continue
            }
        }
    }

    private static let idCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// The header again (for `HEAD`), in a fixed order.
    public var header: String {
        var pairs = [("filename", filename), ("title", title)]
        if let albumID { pairs.append(("album_id", albumID)) }
        return pairs.filter { !$0.1.isEmpty }.map { "\($0.0) \(Data($0.1.utf8).base64EncodedString())" }.joined(separator: ",")
    }
}
