import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as its bytes (4 or 16), parsed strictly (`inet_pton`).
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init?(_ text: some StringProtocol) {
        let text = String(text)
        if text.contains(":") {
            var raw = in6_addr()
            guard inet_pton(AF_INET6, text, &raw) == 1 else { return nil }
            bytes = withUnsafeBytes(of: raw) { Array($0) }
        } else {
            var raw = in_addr()
            guard inet_pton(AF_INET, text, &raw) == 1 else { return nil }
            bytes = withUnsafeBytes(of: raw) { Array($0) }
        }
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    public var isIPv6: Bool { bytes.count == 16 }

    /// `::ffff:a.b.c.d` as the IPv4 address it carries; any other address as it is.
    var unmapped: IPAddress {
        guard isIPv6, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else { return self }
        return IPAddress(bytes: Array(bytes[12...]))
    }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        return bytes.withUnsafeBytes { raw in
            guard inet_ntop(isIPv6 ? AF_INET6 : AF_INET, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil else { return "" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// The first `bits` bits kept, the rest zero.
    func masked(to bits: Int) -> IPAddress {
        var result = bytes
        for index in result.indices {
            let keep = max(0, min(8, bits - index * 8))
            result[index] &= keep == 8 ? 0xff : UInt8(truncatingIfNeeded: 0xff << (8 - keep))
        }
        return IPAddress(bytes: result)
    }
}

/// A block of addresses in CIDR notation (`10.0.0.0/8`, `fd00::/8`); a bare address is a block of one.
public struct CIDRBlock: Sendable, Hashable, CustomStringConvertible {
    let network: IPAddress
    let prefixLength: Int

    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let maximum = address.bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...maximum).contains(length), parts[1].allSatisfy(\.isNumber) else { return nil }
            prefixLength = length
        } else {
            prefixLength = maximum
        }
        network = address.masked(to: prefixLength)
    }

    public func contains(_ address: IPAddress) -> Bool {
        let address = address.unmapped
        guard address.bytes.count == network.bytes.count else { return false }
        return address.masked(to: prefixLength) == network
    }

    public var description: String { "\(network)/\(prefixLength)" }
}

/// `TRUSTED_PROXIES`: the reverse proxies (load balancers, TLS terminators) whose forwarding headers
/// Selfie believes. Empty by default: then every client is the TCP peer, whatever headers it sends.
public struct TrustedProxies: Sendable, Equatable {
    public let blocks: [CIDRBlock]

    public static let none = TrustedProxies(blocks: [])

    public init(blocks: [CIDRBlock]) { self.blocks = blocks }

    /// Parses a list separated by commas or spaces; returns the entries that are not addresses or blocks.
    public static func parse(_ text: String) -> (TrustedProxies, invalid: [String]) {
        var blocks: [CIDRBlock] = []
        var invalid: [String] = []
        for entry in text.split(whereSeparator: { $0 == "," || $0 == " " }) {
            if let block = CIDRBlock(entry) { blocks.append(block) } else { invalid.append(String(entry)) }
        }
        return (TrustedProxies(blocks: blocks), invalid)
    }

    public func trusts(_ address: IPAddress) -> Bool { blocks.contains { $0.contains(address) } }
}

/// `CLIENT_IP_HEADER`: the one forwarding header the proxy in front sets, and the only one read.
/// A proxy passes on the headers it does not set (nginx forwards a client's own `Forwarded`), so
/// reading a second one would let a client name itself.
public enum ClientIPHeader: String, Sendable, CaseIterable {
    /// nginx's `$proxy_add_x_forwarded_for`, Caddy's and most load balancers' default.
    case xForwardedFor = "x-forwarded-for"
    /// RFC 7239 (HAProxy's `option forwarded`, Envoy, some CDNs).
    case forwarded
}

/// Who is on the other end of a request, once the proxies in between are accounted for.
public struct ClientAddress: Sendable, Equatable {
    /// The client's address (what rate limits, sessions and the audit log record).
    public let address: String
    /// `https` when the client's connection was TLS (as a trusted proxy says), else `http`.
    public let scheme: String

    public init(address: String, scheme: String) {
        self.address = address
        self.scheme = scheme
    }

    /// The client of a request from the TCP peer `peer` with these header values (every field
    /// line of each header, in order).
    ///
    /// Only when the peer is a trusted proxy is a header read, and only `header` (the other is
    /// ignored, whatever it says); walking from the right (the hop nearest to us), the first
    /// address that is not a trusted proxy is the client. A hop that is not an address
    /// (`unknown`, an obfuscated name, garbage) stops the walk: the client is then the last
    /// trusted hop, the one that reported it. The scheme comes from the same element of
    /// `Forwarded` or from `X-Forwarded-Proto` (its last value).
    public static func resolve(
        peer: String,
        reading header: ClientIPHeader,
        forwarded: [String],
        xForwardedFor: [String],
        xForwardedProto: [String],
        trusted: TrustedProxies
    ) -> ClientAddress {
        guard let peerAddress = IPAddress(peer), trusted.trusts(peerAddress) else {
            return ClientAddress(address: peer, scheme: "http")
        }
        var client = peer
        var scheme = xForwardedProto.flatMap { $0.split(separator: ",") }.last.map(Self.scheme(from:)) ?? nil
        if header == .forwarded {
            let elements = forwarded.flatMap(Self.forwardedElements)
            for element in elements.reversed() {
                guard let hop = element["for"].flatMap(Self.address(fromNode:)) else { break }
                client = hop.description
                scheme = element["proto"].flatMap(Self.scheme(from:)) ?? scheme
                if !trusted.trusts(hop) { break }
            }
        } else {
            for entry in xForwardedFor.flatMap({ $0.split(separator: ",") }).reversed() {
                guard let hop = Self.address(fromNode: entry.trimmingCharacters(in: .whitespaces)) else { break }
                client = hop.description
                if !trusted.trusts(hop) { break }
            }
        }
        return ClientAddress(address: client, scheme: scheme ?? "http")
    }

    private static func scheme(from value: some StringProtocol) -> String? {
        switch value.trimmingCharacters(in: .whitespaces).lowercased() {
        case "https": "https"
        case "http": "http"
        default: nil
        }
    }

    /// A node of `Forwarded: for=` or of `X-Forwarded-For`: `192.0.2.1`, `192.0.2.1:4711`,
    /// `[2001:db8::1]`, `[2001:db8::1]:4711`, a bare `2001:db8::1`; anything else is nil.
    static func address(fromNode node: String) -> IPAddress? {
        if node.hasPrefix("["), let end = node.firstIndex(of: "]") {
            let rest = node[node.index(after: end)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
            return IPAddress(node[node.index(after: node.startIndex)..<end]).flatMap { $0.isIPv6 ? $0 : nil }
        }
        if let address = IPAddress(node) { return address.unmapped }
        let parts = node.split(separator: ":")
        if parts.count == 2, parts[1].allSatisfy(\.isNumber), let address = IPAddress(parts[0]), !address.isIPv6 { return address }
        return nil
    }

    /// The elements of one `Forwarded` field line, each a dictionary of its (lower-cased)
    /// parameters with quotes removed. Commas and semicolons inside quotes are part of the value,
    /// and so is a quoted-pair (`\"`, `\\`: RFC 7230's escape), so that a client cannot end a
    /// quoted value early and hide the element its proxy appended inside its own. A line whose
    /// last quote is not closed is one element without parameters: what the proxy appended may be
    /// inside it, so the walk stops there.
    static func forwardedElements(_ line: String) -> [[String: String]] {
        var elements: [[String: String]] = []
        var current: [String: String] = [:]
        var pair = ""
        var quoted = false
        var escaped = false
        func finishPair() {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 {
                var value = parts[1].trimmingCharacters(in: .whitespaces)
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = unquoted(value.dropFirst().dropLast()) }
                current[parts[0].trimmingCharacters(in: .whitespaces).lowercased()] = value
            }
            pair = ""
        }
        for character in line {
            if escaped {
                escaped = false
                pair.append(character)
                continue
            }
            switch character {
            case "\\" where quoted:
                escaped = true
                pair.append(character)
            case "\"":
                quoted.toggle()
                pair.append(character)
            case ";" where !quoted:
                finishPair()
            case "," where !quoted:
                finishPair()
                elements.append(current)
                current = [:]
            default:
                pair.append(character)
            }
        }
        guard !quoted else { return [[:]] }
        finishPair()
        elements.append(current)
        return elements
    }

    /// A quoted string's content with its quoted-pairs resolved.
    private static func unquoted(_ content: Substring) -> String {
        var value = ""
        var escaped = false
        for character in content {
            if character == "\\", !escaped {
                escaped = true
                continue
            }
            escaped = false
            value.append(character)
        }
        return value
    }

    /// The key per-address limits count under: an IPv4 address as it is, an IPv6 address by its
    /// /64 (one subscriber's network: a client can pick any of its 2^64 addresses).
    public static func rateLimitKey(for address: String) -> String {
        guard let parsed = IPAddress(address)?.unmapped else { return address }
        return parsed.isIPv6 ? "\(parsed.masked(to: 64))/64" : parsed.description
    }
}
