import Base64URLCoding

/// How a pass over every blob (the sweep, the integrity check) splits the store so that it holds
/// one part of the listing and of the rows at a time. Keys begin with random base64url characters
/// (`BlobKey.random`), so the parts that share a first character (or two) are about equal in size.
enum BlobNamePrefixes {
    /// The 64 symbols a key may begin with, in byte order (as S3 lists and `COLLATE "C"` sorts).
    static let symbols = Base64URL.alphabet.sorted().map { String(UnicodeScalar($0)) }

    /// Every first character (64 parts) while `blobs` fit in 64 × `perPart`; else every first two
    /// (4,096 parts). Never one part for everything: the rows are counted, the store is not (a store
    /// restored beside a smaller database can hold many more blobs than there are rows).
    static func covering(blobs: Int, perPart: Int) -> [String] {
        if blobs <= perPart * symbols.count { return symbols }
        return symbols.flatMap { first in symbols.map { first + $0 } }
    }

    /// The first string after every one that starts with `prefix`, in byte order (its range's end);
    /// for "" one above every key (keys are ASCII below 0x7F).
    static func end(of prefix: String) -> String {
        guard !prefix.isEmpty else { return "\u{7F}" }
        var bytes = Array(prefix.utf8)
        bytes[bytes.count - 1] += 1  // base64url symbols are ASCII below 0x7F
        return String(decoding: bytes, as: UTF8.self)
    }
}
