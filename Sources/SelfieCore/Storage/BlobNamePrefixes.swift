import Base64URLCoding

/// How a pass over every blob (the sweep, the integrity check) splits the store so that it holds
/// one part of the listing and of the rows at a time. Keys begin with random base64url characters
/// (`BlobKey.random`), so the parts that share a first character (or two) are about equal in size.
enum BlobNamePrefixes {
    static let symbols = Base64URL.alphabet.map { String(UnicodeScalar($0)) }

    /// One prefix ("": everything) while `blobs` fit in one part of `perPart`; else every first
    /// character (64 parts), or every first two (4,096 parts) beyond 64 × `perPart`.
    static func covering(blobs: Int, perPart: Int) -> [String] {
        if blobs <= perPart { return [""] }
        if blobs <= perPart * symbols.count { return symbols }
        return symbols.flatMap { first in symbols.map { first + $0 } }
    }
}
