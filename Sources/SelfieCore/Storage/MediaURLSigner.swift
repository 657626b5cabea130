import Base64URLCoding
import Crypto
import Foundation
import Synchronization

/// Signs and checks `/media/<key>?expires=…&sig=…` URLs for blobs that Selfie serves itself
/// (the filesystem store). The signature is an HMAC of key and expiry under a key derived from
/// `SECRET_KEY`; whoever holds the URL may fetch the blob until it expires, nobody else.
public struct MediaURLSigner: Sendable {
    private let key: SymmetricKey
    /// The HMAC with its key already mixed in: each signature copies it instead of keying anew.
    private let keyedHMAC: HMAC<SHA256>
    let publicURL: URL
    /// `<public URL>/media/`: a page of 24 photos signs ~50 URLs, each begins with it.
    private let urlPrefix: String
    private let recent = RecentURLs(capacity: 5_000)

    /// Where Selfie serves signed blobs: `<path>/<blob key>`.
    public static let path = "/media"

    public init(secretKey: SecretKey, publicURL: URL) {
        self.key = secretKey.derived(for: "media-url")
        self.keyedHMAC = HMAC<SHA256>(key: key)
        self.publicURL = publicURL
        self.urlPrefix = "\(publicURL.absoluteString)\(Self.path)/"
    }

    /// Expiry rounded up to the next quarter hour, so a page reloaded within minutes gets the same
    /// URL and the browser's cache keeps working.
    func url(for blob: BlobKey, lifetime: Duration, now: Date = .now) -> String {
        let quarter = 900
        let earliest = Int(now.timeIntervalSince1970) + Int(lifetime.components.seconds)
        let expires = (earliest + quarter - 1) / quarter * quarter
        if let url = recent.url(for: blob.value, expires: expires) { return url }
        let expiry = String(expires)
        let url = urlPrefix + blob.value + "?expires=" + expiry + "&sig=" + signature(blob: blob, expires: expiry)
        recent.keep(url, for: blob.value, expires: expires)
        return url
    }

    public enum Verdict: Equatable {
        case valid
        case expired
        case badSignature
    }

    public func verify(blob: BlobKey, expires: String?, signature: String?, now: Date = .now) -> Verdict {
        guard let expires, let expiry = Int(expires), let signature else { return .badSignature }
        let expected = self.signature(blob: blob, expires: String(expiry))
        guard constantTimeEquals(Array(signature.utf8), Array(expected.utf8)) else { return .badSignature }
        return expiry >= Int(now.timeIntervalSince1970) ? .valid : .expired
    }

    /// base64url(HMAC-SHA256("<blob key>\n<expiry in decimal>")).
    private func signature(blob: BlobKey, expires: String) -> String {
        var hmac = keyedHMAC
        var message = blob.value + "\n" + expires
        message.withUTF8 { hmac.update(data: UnsafeRawBufferPointer($0)) }
        return hmac.finalize().withUnsafeBytes { Base64URL.encode($0) }
    }
}

/// URLs signed for the current expiry, by blob key: a list or page shown again within the quarter
/// hour (an app refreshing get_photos, a gallery reloaded) gets the same URLs without an HMAC each —
/// 20 for a get_photos of 20, 40 for a gallery of 20. Two generations of at most `capacity` entries bound the memory
/// (a URL and its key, ~300 bytes an entry: 3 MB for two generations of 5,000); an entry for an
/// older expiry is signed anew.
final class RecentURLs: Sendable {
    private struct Entry {
        let expires: Int
        let url: String
    }
    private struct Generations {
        var current: [String: Entry] = [:]
        var previous: [String: Entry] = [:]
    }
    private let generations = Mutex(Generations())
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    func url(for blob: String, expires: Int) -> String? {
        generations.withLock { kept in
            if let entry = kept.current[blob] { return entry.expires == expires ? entry.url : nil }
            guard let entry = kept.previous[blob], entry.expires == expires else { return nil }
            Self.insert(entry, for: blob, into: &kept, capacity: capacity)
            return entry.url
        }
    }

    func keep(_ url: String, for blob: String, expires: Int) {
        generations.withLock { Self.insert(Entry(expires: expires, url: url), for: blob, into: &$0, capacity: capacity) }
    }

    /// How many URLs are kept in both generations.
    var count: Int { generations.withLock { $0.current.count + $0.previous.count } }

    private static func insert(_ entry: Entry, for blob: String, into kept: inout Generations, capacity: Int) {
        if kept.current.count >= capacity {
            kept.previous = kept.current
            kept.current = [:]
        }
        kept.current[blob] = entry
    }
}
