@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Behind a reverse proxy: whose address a request is counted under (`TRUSTED_PROXIES`).
@Suite("Clients behind proxies")
struct ProxyTests {
    static let proxies = TrustedProxies.parse("127.0.0.1, 10.0.0.0/8, fd00::/8").0

    static func resolve(
        peer: String, header: ClientIPHeader = .xForwardedFor, forwarded: [String] = [], xff: [String] = [], proto: [String] = [],
        trusted: TrustedProxies = proxies
    ) -> ClientAddress {
        ClientAddress.resolve(peer: peer, reading: header, forwarded: forwarded, xForwardedFor: xff, xForwardedProto: proto, trusted: trusted)
    }

    @Test("from an untrusted peer every forwarding header is ignored: the client is the peer")
    func untrustedPeer() {
        let spoofed = Self.resolve(peer: "203.0.113.50", forwarded: ["for=198.51.100.1;proto=https"], xff: ["198.51.100.1"], proto: ["https"])
        #expect(spoofed == ClientAddress(address: "203.0.113.50", scheme: "http"))
        #expect(Self.resolve(peer: "127.0.0.1", xff: ["198.51.100.1"], trusted: .none).address == "127.0.0.1", "nothing is trusted by default")
    }

    @Test("X-Forwarded-For from a trusted proxy: the rightmost address that is not a trusted proxy")
    func xForwardedFor() {
        #expect(Self.resolve(peer: "127.0.0.1", xff: ["198.51.100.1"], proto: ["https"]) == ClientAddress(address: "198.51.100.1", scheme: "https"))
        // A client that sends its own X-Forwarded-For gets it appended to: the forged entries are on the left.
        #expect(Self.resolve(peer: "127.0.0.1", xff: ["6.6.6.6, 1.1.1.1", "198.51.100.1"]).address == "198.51.100.1")
        // Two trusted hops (an edge proxy at 10.1.2.3, then the local one).
        #expect(Self.resolve(peer: "127.0.0.1", xff: ["6.6.6.6, 198.51.100.1, 10.1.2.3"]).address == "198.51.100.1")
        // Every hop trusted: the leftmost is the client.
        #expect(Self.resolve(peer: "127.0.0.1", xff: ["10.9.9.9, 10.1.2.3"]).address == "10.9.9.9")
        // Garbage stops the walk at the last trusted hop, the one that reported it.
        #expect(Self.resolve(peer: "127.0.0.1", xff: ["198.51.100.1, not-an-ip, 10.1.2.3"]).address == "10.1.2.3")
        #expect(Self.resolve(peer: "127.0.0.1", xff: ["198.51.100.1:5555"]).address == "198.51.100.1", "a port is dropped")
        #expect(Self.resolve(peer: "127.0.0.1", xff: ["::ffff:198.51.100.1"]).address == "198.51.100.1", "an IPv4-mapped address is IPv4")
        #expect(Self.resolve(peer: "127.0.0.1", xff: []).address == "127.0.0.1", "no header: the proxy itself")
        #expect(Self.resolve(peer: "127.0.0.1", proto: ["ftp"]).scheme == "http", "an unknown scheme is ignored")
    }

    @Test("CLIENT_IP_HEADER=forwarded reads Forwarded (RFC 7239) only: quoted IPv6 with ports, several elements and field lines, proto per element")
    func forwarded() {
        let client = Self.resolve(
            peer: "127.0.0.1",
            header: .forwarded,
            forwarded: [#"for=192.0.2.60;proto=http, For="[2001:db8:cafe::17]:4711";proto=https"#, "for=10.1.2.3"],
            xff: ["6.6.6.6"]
        )
        #expect(client == ClientAddress(address: "2001:db8:cafe::17", scheme: "https"))
        #expect(Self.resolve(peer: "127.0.0.1", header: .forwarded, forwarded: [#"for="_hidden", for=10.1.2.3"#]).address == "10.1.2.3")
        #expect(Self.resolve(peer: "127.0.0.1", header: .forwarded, forwarded: ["for=unknown"]).address == "127.0.0.1")
        #expect(Self.resolve(peer: "fd00::1", header: .forwarded, forwarded: [#"for="[2001:db8::1]""#]).address == "2001:db8::1", "an IPv6 proxy in a trusted block")
        #expect(Self.resolve(peer: "127.0.0.1", header: .forwarded, xff: ["6.6.6.6"]).address == "127.0.0.1", "X-Forwarded-For is not read")
        #expect(Self.resolve(peer: "127.0.0.1", forwarded: ["for=6.6.6.6"], xff: ["198.51.100.1"]).address == "198.51.100.1", "by default Forwarded is not read")
    }

    @Test("Forwarded: an escaped quote inside a quoted value does not end it, so a client cannot hide the proxy's element inside its own; an unclosed quote stops the walk")
    func forwardedQuoting() {
        func client(_ lines: [String]) -> String { Self.resolve(peer: "127.0.0.1", header: .forwarded, forwarded: lines).address }
        // The client sent `for=6.6.6.6;x="a\"b"`; the proxy appended its own element after a comma.
        #expect(client([#"for=6.6.6.6;x="a\"b", for=203.0.113.7"#]) == "203.0.113.7")
        #expect(client([#"for=6.6.6.6;x="a\\", for=203.0.113.7"#]) == "203.0.113.7", "an escaped backslash, then the closing quote")
        // An unclosed quote swallows whatever the proxy appended: nothing in that line is believed.
        #expect(client([#"for=6.6.6.6;x=", for=203.0.113.7"#]) == "127.0.0.1")
        #expect(client([#"for=6.6.6.6;x=", for=198.51.100.2"#, "for=10.1.2.3"]) == "10.1.2.3", "the last trusted hop that reported it")
        // Escaped quotes and commas inside a value stay in it.
        #expect(client([#"for="198.51.100.9";note="say \"hi\", then go""#]) == "198.51.100.9")
    }

    @Test("CLIENT_IP_HEADER: x-forwarded-for (the default) or forwarded; anything else refuses to start")
    func headerSetting() throws {
        var environment = ConfigurationTests().complete
        #expect(try AppConfiguration.load(from: environment).clientIPHeader == .xForwardedFor)
        environment["CLIENT_IP_HEADER"] = "Forwarded"
        #expect(try AppConfiguration.load(from: environment).clientIPHeader == .forwarded)
        environment["CLIENT_IP_HEADER"] = "x-real-ip"
        let error = #expect(throws: ConfigurationError.self) { try AppConfiguration.load(from: environment) }
        #expect(error?.description.contains("CLIENT_IP_HEADER must be x-forwarded-for or forwarded") == true)
    }

    @Test("TRUSTED_PROXIES: addresses and CIDR blocks, IPv4 and IPv6; anything else refuses to start")
    func configuration() throws {
        let (parsed, invalid) = TrustedProxies.parse("10.0.0.0/8 192.168.1.7, fd00::/8,::1")
        #expect(invalid.isEmpty)
        #expect(parsed.blocks.map(\.description) == ["10.0.0.0/8", "192.168.1.7/32", "fd00::/8", "::1/128"])
        #expect(parsed.trusts(IPAddress("10.200.3.4")!) && !parsed.trusts(IPAddress("11.0.0.1")!))
        #expect(parsed.trusts(IPAddress("::ffff:10.1.1.1")!), "IPv4-mapped peers match IPv4 blocks")
        #expect(TrustedProxies.parse("10.0.0.0/33, 10.0.0/8, example.com, 1.2.3.4/").invalid.count == 4)
        var environment = ConfigurationTests().complete
        environment["TRUSTED_PROXIES"] = "10.0.0.0/8, nonsense"
        let error = #expect(throws: ConfigurationError.self) { try AppConfiguration.load(from: environment) }
        #expect(error?.description.contains(#"TRUSTED_PROXIES must list addresses or CIDR blocks (10.0.0.0/8, fd00::/8), not "nonsense""#) == true)
        environment["TRUSTED_PROXIES"] = "10.0.0.0/8 fd00::/8"
        #expect(try AppConfiguration.load(from: environment).trustedProxies.blocks.count == 2)
    }

    @Test("per-address limits count an IPv6 client by its /64")
    func ipv6Buckets() {
        #expect(ClientAddress.rateLimitKey(for: "2001:db8:1:2::1") == "2001:db8:1:2::/64")
        #expect(ClientAddress.rateLimitKey(for: "2001:db8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64")
        #expect(ClientAddress.rateLimitKey(for: "2001:db8:1:3::1") == "2001:db8:1:3::/64")
        #expect(ClientAddress.rateLimitKey(for: "198.51.100.7") == "198.51.100.7")
        #expect(ClientAddress.rateLimitKey(for: "::ffff:198.51.100.7") == "198.51.100.7")
    }

    /// Two sign-ups an hour per client address (no other limit), behind the proxies `trusting` lists.
    static func twoSignUpsAnHour(trusting proxies: String) -> @Sendable (inout AppConfiguration) -> Void {
        { config in
            config.trustedProxies = TrustedProxies.parse(proxies).0
            config.protection = ProtectionConfiguration()
            config.protection.signInsPerMinute = 0
            config.protection.signUpsPerHour = 2
        }
    }

    /// Signs up through the API as the client `forwardedFor` says (behind the test client's 127.0.0.1).
    /// `forwarded`, when given, is a `Forwarded` header the client sent itself (nginx passes it on).
    static func signUp(_ app: TestApp, forwardedFor: String, forwarded: String? = nil) async throws -> HTTPResponse.Status {
        let api = app.api
        let body = "{\"full_name\":\"Proxied\",\"email\":\"\(uniqueEmail("proxied"))\",\"password\":\"\(api.encrypt("correct horse battery"))\"}"
        var headers: HTTPFields = [.contentType: "application/json", .authorization: api.basicAuthorization, .xForwardedFor: forwardedFor]
        if let forwarded { headers[.forwarded] = forwarded }
        return try await app.client.execute(uri: "/api/signup", method: .post, headers: headers, body: ByteBuffer(string: body)).status
    }

    @Test("behind a trusted proxy each client has its own sign-up limit (an IPv6 client per /64)")
    func limitsPerClientBehindProxy() async throws {
        try await withTestApp(configure: Self.twoSignUpsAnHour(trusting: "127.0.0.1/32, ::1/128")) { app in
            #expect(try await Self.signUp(app, forwardedFor: "203.0.113.7") == .ok)
            #expect(try await Self.signUp(app, forwardedFor: "203.0.113.7") == .ok)
            #expect(try await Self.signUp(app, forwardedFor: "203.0.113.7") == .tooManyRequests, "the first client is at its limit")
            #expect(try await Self.signUp(app, forwardedFor: "198.51.100.9") == .ok, "a second client behind the same proxy is not")
            #expect(try await Self.signUp(app, forwardedFor: "2001:db8:1:2::1") == .ok)
            #expect(try await Self.signUp(app, forwardedFor: "2001:db8:1:2::99") == .ok)
            #expect(try await Self.signUp(app, forwardedFor: "2001:db8:1:2:abcd::5") == .tooManyRequests, "the same /64")
            #expect(try await Self.signUp(app, forwardedFor: "2001:db8:1:3::1") == .ok, "the next /64")
            let counters = try await app.scalar("SELECT string_agg(DISTINCT client, ',' ORDER BY client) FROM rate_limit_counters WHERE client NOT LIKE 'user:%'", as: String.self)
            #expect(counters == "198.51.100.9,2001:db8:1:2::/64,2001:db8:1:3::/64,203.0.113.7", "counted under the clients, never the proxy")
        }
    }

    @Test("from an untrusted peer a forged X-Forwarded-For changes nothing: every request counts against the peer")
    func spoofedHeaderIgnored() async throws {
        try await withTestApp(configure: Self.twoSignUpsAnHour(trusting: "10.0.0.0/8")) { app in
            #expect(try await Self.signUp(app, forwardedFor: "203.0.113.1") == .ok)
            #expect(try await Self.signUp(app, forwardedFor: "203.0.113.2") == .ok)
            #expect(try await Self.signUp(app, forwardedFor: "203.0.113.3") == .tooManyRequests)
            let clients = try await app.scalar("SELECT string_agg(DISTINCT client, ',') FROM rate_limit_counters WHERE client NOT LIKE 'user:%'", as: String.self)
            #expect(clients == "127.0.0.1")
        }
    }

    @Test("attack: behind nginx (which sets X-Forwarded-For), a Forwarded header the client forges per request does not escape the limit")
    func forgedForwardedHeader() async throws {
        try await withTestApp(configure: Self.twoSignUpsAnHour(trusting: "127.0.0.1/32, ::1/128")) { app in
            for hop in 1...2 {
                #expect(try await Self.signUp(app, forwardedFor: "203.0.113.7", forwarded: "for=198.51.100.\(hop)") == .ok)
            }
            #expect(try await Self.signUp(app, forwardedFor: "203.0.113.7", forwarded: "for=198.51.100.3") == .tooManyRequests)
            let clients = try await app.scalar("SELECT string_agg(DISTINCT client, ',') FROM rate_limit_counters WHERE client NOT LIKE 'user:%'", as: String.self)
            #expect(clients == "203.0.113.7", "counted under the address nginx saw")
        }
    }
}
