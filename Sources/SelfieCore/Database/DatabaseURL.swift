import Foundation
import NIOSSL
import PostgresNIO

/// A parsed `postgres://user:password@host:port/database` URL.
///
/// A unix socket is given as the `host` query item (`postgres://user@/db?host=/var/run/postgresql`),
/// TLS with `sslmode=require` (default: off, as for a local server).
public struct DatabaseURL: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var unixSocketPath: String?
    public var username: String
    public var password: String?
    public var database: String
    public var requireTLS: Bool
    /// Most connections a server opens (`DATABASE_POOL_SIZE`): the pool's, and the hot
    /// statements' on each event loop (`loopConnectionCount`).
    public var maximumConnections = 20

    /// Of `maximumConnections`, how many a server on `loops` event loops keeps for the hot
    /// statements on them (`LoopConnections`): half, rounded down, when that gives every loop one
    /// at least; else none (the pool keeps them all: a loop without its own would send its
    /// statements to a pool made smaller for the others).
    public func loopConnectionCount(loops: Int) -> Int {
        let half = maximumConnections / 2
        return half >= loops ? half : 0
    }
    /// The `application_name` of the pool's connections.
    public static let applicationName = "selfie"
    /// The `application_name` of the hot statements' connections on the event loops.
    public static let loopApplicationName = "selfie-loop"
    /// How often an idle connection is pinged (`DATABASE_KEEPALIVE_SECONDS`, nil: never). By default
    /// every 30 s over a network, where a NAT or firewall may drop a connection it saw idle; never
    /// over a unix socket or loopback, where there is nothing to keep open and each ping's timer is
    /// pure cost (`poolConfiguration`).
    public var keepAlive: Duration?
    /// Whether the hot statements are prepared on each connection (`DATABASE_PREPARED_STATEMENTS`,
    /// default on). Off for PgBouncer in transaction mode before 1.21, which cannot keep a prepared
    /// statement with its connection; the same SQL is then sent unprepared.
    public var preparedStatements = true

    public init(_ text: String) throws(InvalidValue) {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme.lowercased())
        else {
            throw InvalidValue(reason: "must look like postgres://user:password@host:port/database")
        }
        guard let user = components.user, !user.isEmpty else {
            throw InvalidValue(reason: "must name a user (postgres://user:password@host/database)")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else {
            throw InvalidValue(reason: "must name a database after the host (…/database)")
        }
        let query = components.queryItems ?? []
        self.unixSocketPath = query.first(where: { $0.name == "host" })?.value
        // As written, percent-decoded (an IPv6 zone, `%25eth0`): a name in punycode stays so, as DNS
        // takes it (`host` would decode it through ICU's IDNA). An IPv6 address comes with its
        // brackets (`[::1]`), which the connection's resolver does not take.
        let written = components.encodedHost.map { $0.removingPercentEncoding ?? $0 }
        let host = written.map { $0.hasPrefix("[") && $0.hasSuffix("]") ? String($0.dropFirst().dropLast()) : $0 }
        self.host = host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        self.port = components.port ?? 5432
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
        // libpq's names, in lower case as libpq takes them. No "prefer" or "allow": a connection
        // that falls back to plain text when TLS fails is no promise of TLS, and was silently none.
        switch query.first(where: { $0.name == "sslmode" })?.value ?? "disable" {
        case "disable": self.requireTLS = false
        case "require", "verify-ca", "verify-full": self.requireTLS = true
        case let mode:
            throw InvalidValue(
                reason: "sslmode=\(mode) is not one this server takes: use sslmode=require (TLS, the certificate checked against the system's CAs and the host name) or sslmode=disable"
            )
        }
        self.keepAlive = unixSocketPath != nil || Self.isLoopback(self.host) ? nil : .seconds(30)
    }

    /// `localhost`, `::1` or an address in 127.0.0.0/8.
    static func isLoopback(_ host: String) -> Bool {
        if host.lowercased() == "localhost" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// The same server and credentials, another database (tests clone databases this way).
    public func with(database: String) -> DatabaseURL {
        var copy = self
        copy.database = database
        return copy
    }

    /// The pool of `CoreServices`: connections opened on demand, up to `maximumConnections`,
    /// pinged when idle unless `keepAlive` is nil.
    ///
    /// PostgresNIO starts a keep-alive timer every time a query gives a connection back to the pool,
    /// and an idle-timeout timer (60 s) too: a task group of two tasks and a `Task.sleep` each. A
    /// cancelled sleep keeps its memory until its deadline would have come (swiftlang/swift#60441),
    /// so at thousands of queries a second these timers held tens of MB (BENCHMARKS.md); hence no
    /// keep-alive where it protects nothing. No connection is kept open (`minimumConnections`,
    /// which would spare the idle timer): with kept connections, PostgresNIO 1.33.2 stops the process
    /// on a precondition when requests pile up while it reconnects after an outage
    /// (`createNewDemandConnectionIfPossible`; `scripts/fault-check.sh` checks it), and it gives a
    /// waiting request no attempt of its own while it reconnects them.
    /// `leaving`: the connections kept on the event loops, which the pool does not open.
    public func poolConfiguration(leaving loopConnections: Int = 0) -> PostgresClient.Configuration {
        var configuration = clientConfiguration
        configuration.options.maximumConnections = maximumConnections - loopConnections
        // What `pg_stat_activity` shows for these connections.
        configuration.options.additionalStartupParameters = [("application_name", Self.applicationName)]
        configuration.options.keepAliveBehavior = keepAlive.map { .init(frequency: $0) }
        return configuration
    }

    /// A pool that opens connections when asked (commands, tests, short-lived clients).
    public var clientConfiguration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let unixSocketPath {
            configuration = .init(
                unixSocketPath: unixSocketPath,
                username: username,
                password: password,
                database: database
            )
        } else {
            configuration = .init(
                host: host,
                port: port,
                username: username,
                password: password,
                database: database,
                tls: requireTLS ? .require(.makeClientConfiguration()) : .disable
            )
        }
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.maximumConnections = maximumConnections
        return configuration
    }

    /// One connection of its own, outside the pool (the access-change listener holds it).
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let unixSocketPath {
            configuration = .init(unixSocketPath: unixSocketPath, username: username, password: password, database: database)
        } else {
            configuration = .init(
                host: host,
                port: port,
                username: username,
                password: password,
                database: database,
                tls: requireTLS ? .require(try NIOSSLContext(configuration: .makeClientConfiguration())) : .disable
            )
        }
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }
}
