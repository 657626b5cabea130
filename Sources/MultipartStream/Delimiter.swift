#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where a search for the delimiter ended.
enum DelimiterMatch: Equatable {
    /// No delimiter starts in the searched bytes.
    case none
    /// The whole delimiter starts at this offset.
    case complete(at: Int)
    /// The bytes from this offset to the end are a proper prefix of the delimiter: they may be a
    /// delimiter split across chunks, so they must not be handed out as data yet.
    case partial(at: Int)
}

/// The delimiter that ends a part's body (`CRLF--boundary`) and the search for it.
///
/// A boundary is printable ASCII, so CR occurs only as the delimiter's first byte. Candidates are
/// found with `memchr` (vectorised in libc), and a failed compare stops at the next CR at the
/// latest, so the search never backs up: linear time, whatever the data.
struct Delimiter: Sendable {
    let bytes: [UInt8]

    init(boundary: String) {
        bytes = Array("\r\n--\(boundary)".utf8)
    }

    var count: Int { bytes.count }

    /// The first delimiter, or delimiter prefix running to the end, in `haystack[start...]`.
    func firstMatch(in haystack: UnsafeRawBufferPointer, from start: Int) -> DelimiterMatch {
        guard start < haystack.count, let base = haystack.baseAddress else { return .none }
        let end = haystack.count
        return bytes.withUnsafeBytes { needle in
            let needleBase = needle.baseAddress!
            var position = start
            while position < end {
                guard let hit = memchr(base + position, 0x0D, end - position) else { return .none }
                let candidate = base.distance(to: UnsafeRawPointer(hit))
                let available = min(end - candidate, needle.count)
                // Most CRs in binary data are not followed by LF: skip them without a call.
                if available == 1 || haystack[candidate + 1] == 0x0A,
                    memcmp(base + candidate + 1, needleBase + 1, available - 1) == 0
                {
                    return available == needle.count ? .complete(at: candidate) : .partial(at: candidate)
                }
                position = candidate + 1
            }
            return .none
        }
    }

    /// Whether `haystack` equals the delimiter's bytes from `offset` on, for `haystack.count` bytes.
    func continues(at offset: Int, with haystack: UnsafeRawBufferPointer) -> Bool {
        guard haystack.count > 0 else { return true }
        return bytes.withUnsafeBytes { needle in
            memcmp(haystack.baseAddress!, needle.baseAddress! + offset, haystack.count) == 0
        }
    }
}
