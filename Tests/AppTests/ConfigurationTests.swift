@testable import App
@testable import SelfieCore
import Foundation
import PostgresNIO
import Testing

@Suite("Configuration")
struct ConfigurationTests {
    let complete: [String: String] = [
        "SECRET_KEY": String(repeating: "s", count: 32),
        "DATABASE_URL": "postgres://selfie:pw@127.0.0.1:5432/selfie",
        "API_AUTH_NAME": "app",
        "API_AUTH_PASSWORD": "app-password",
    ]

    @Test("a complete environment loads, with documented defaults")
    func loadsDefaults() throws {
        let config = try AppConfiguration.load(from: complete)
        #expect(config.host == "127.0.0.1")
        #expect(config.port == 8080)
        #expect(config.publicURL.absoluteString == "http://127.0.0.1:8080")
        #expect(config.database.database == "selfie")
        #expect(config.database.password == "pw")
        #expect(config.usesHTTPS == false)
        #expect(config.bcryptCost == 12)
        #expect(config.maxUploadBytes == 20 * 1024 * 1024)
        #expect(config.tokenLifetime == .seconds(86400))
        #expect(config.blobStore == .filesystem(directory: "data/blobs"))
    }

    @Test("shutdown: DRAIN_SECONDS and SHUTDOWN_TIMEOUT_SECONDS, defaults within compose.yaml's 30 s stop grace, bad values named")
    func shutdownTimings() throws {
        let defaults = try AppConfiguration.load(from: complete)
        #expect(defaults.drainGrace == .seconds(3) && defaults.shutdownTimeout == .seconds(15))
        // Drain, then in-flight work, then the time cancelled work gets: all before compose's SIGKILL.
        let composeStopGrace = try #require(try String(contentsOfFile: "\(repositoryRoot)/compose.yaml", encoding: .utf8)
            .firstMatch(of: /stop_grace_period: (\d+)s/).flatMap { Int($0.1) })
        #expect(defaults.drainGrace + defaults.shutdownTimeout + cancellationLimit < .seconds(composeStopGrace))
        var environment = complete
        environment["DRAIN_SECONDS"] = "1"
        environment["SHUTDOWN_TIMEOUT_SECONDS"] = "2"
        let set = try AppConfiguration.load(from: environment)
        #expect(set.drainGrace == .seconds(1) && set.shutdownTimeout == .seconds(2))
        for bad in ["0", "-5", "soon", "3601"] {
            environment["SHUTDOWN_TIMEOUT_SECONDS"] = bad
            let error = #expect(throws: ConfigurationError.self) { try AppConfiguration.load(from: environment) }
            #expect(error?.problems == ["SHUTDOWN_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 3600, got \"\(bad)\""])
        }
    }

    @Test("image workers: IMAGE_WORKER_MEMORY_MB, IMAGE_WORKER_TIMEOUT_SECONDS and IMAGE_WORKER_PATH, with defaults; bad values named")
    func imageWorkerSettings() throws {
        let defaults = try AppConfiguration.load(from: complete).imageWorkers
        #expect(defaults.memoryLimitMB == 2048 && defaults.timeout == .seconds(60) && defaults.executable == nil)
        // Beside the running executable by default (here the test runner, in the same build folder).
        #expect(defaults.resolvedExecutable.hasSuffix("/selfie-image-worker"))
        #expect(FileManager.default.isExecutableFile(atPath: defaults.resolvedExecutable))
        var environment = complete
        environment["IMAGE_WORKER_MEMORY_MB"] = "512"
        environment["IMAGE_WORKER_TIMEOUT_SECONDS"] = "30"
        environment["IMAGE_WORKER_PATH"] = "/opt/selfie/selfie-image-worker"
        let set = try AppConfiguration.load(from: environment).imageWorkers
        #expect(set.memoryLimitMB == 512 && set.timeout == .seconds(30) && set.resolvedExecutable == "/opt/selfie/selfie-image-worker")
        environment["IMAGE_WORKER_MEMORY_MB"] = "100"
        environment["IMAGE_WORKER_TIMEOUT_SECONDS"] = "soon"
        let error = #expect(throws: ConfigurationError.self) { try AppConfiguration.load(from: environment) }
        #expect(error?.problems == [
            "IMAGE_WORKER_MEMORY_MB must be a whole number of megabytes, at least 256, got \"100\"",
            "IMAGE_WORKER_TIMEOUT_SECONDS must be a whole number of seconds, at least 5, got \"soon\"",
        ])
    }

    @Test("UPLOAD_TIMEOUT_SECONDS stays under the hour after which the sweep removes unfinished uploads (an S3 multipart upload still arriving would be aborted under it)")
    func uploadTimeoutUnderTheSweep() throws {
        var environment = complete
        environment["UPLOAD_TIMEOUT_SECONDS"] = "3000"
        #expect(try AppConfiguration.load(from: environment).uploads.deadline == .seconds(3000))
        environment["UPLOAD_TIMEOUT_SECONDS"] = "7200"
        let error = #expect(throws: ConfigurationError.self) { try AppConfiguration.load(from: environment) }
        #expect(error?.problems == ["UPLOAD_TIMEOUT_SECONDS must be a whole number of seconds from 10 to 3000, got \"7200\""])
    }

    @Test("the access cache, its listener's database and prepared statements: defaults, settings and refusals")
    func accessCacheAndStatementSettings() throws {
        let defaults = try AppConfiguration.load(from: complete)
        #expect(defaults.accessCacheLifetime == .seconds(30) && defaults.listenDatabase == nil && defaults.database.preparedStatements)
        var environment = complete
        environment["ACCESS_CACHE_SECONDS"] = "0"
        environment["DATABASE_PREPARED_STATEMENTS"] = "off"
        environment["DATABASE_LISTEN_URL"] = "postgres://selfie:secret@db.internal:5432/selfie"
        let set = try AppConfiguration.load(from: environment)
        #expect(set.accessCacheLifetime == .zero && !set.database.preparedStatements)
        #expect(set.listenDatabase?.host == "db.internal" && set.listenDatabase?.port == 5432)
        environment["ACCESS_CACHE_SECONDS"] = "3600"
        environment["DATABASE_PREPARED_STATEMENTS"] = "maybe"
        environment["DATABASE_LISTEN_URL"] = "mysql://db"
        let error = #expect(throws: ConfigurationError.self) { try AppConfiguration.load(from: environment) }
        #expect(error?.problems.count == 3)
        #expect(error?.problems.contains("ACCESS_CACHE_SECONDS must be a whole number of seconds from 0 (no cache) to 300, got \"3600\"") == true)
        #expect(error?.problems.contains { $0.hasPrefix("DATABASE_PREPARED_STATEMENTS must be on or off") } == true)
        #expect(error?.problems.contains { $0.hasPrefix("DATABASE_LISTEN_URL must look like postgres://") } == true)
    }

    @Test("the pool: its size; keep-alive every 30 s over a network, off on loopback or a socket by default, set either way; refusals")
    func poolSettings() throws {
        func options(_ changes: [String: String]) throws -> PostgresClient.Configuration.Options {
            try AppConfiguration.load(from: complete.merging(changes) { $1 }).database.poolConfiguration().options
        }
        let defaults = try options([:])
        // The whole DATABASE_POOL_SIZE; a server leaves its event loops' share out
        // (`LoopConnectionsTests.sharing`).
        #expect(defaults.maximumConnections == 20 && defaults.minimumConnections == 0 && defaults.keepAliveBehavior == nil)
        #expect(defaults.additionalStartupParameters.map { "\($0.0)=\($0.1)" } == ["application_name=selfie"])
        #expect(try options(["DATABASE_URL": "postgres://selfie:pw@db.internal:5432/selfie"]).keepAliveBehavior?.frequency == .seconds(30))
        #expect(try options(["DATABASE_URL": "postgres://selfie:pw@10.0.0.7/selfie"]).keepAliveBehavior?.frequency == .seconds(30))
        #expect(try options(["DATABASE_URL": "postgres://selfie:pw@127.0.0.53/selfie"]).keepAliveBehavior == nil)
        #expect(try options(["DATABASE_URL": "postgres://selfie:pw@LocalHost/selfie"]).keepAliveBehavior == nil)
        #expect(try options(["DATABASE_URL": "postgres://selfie:pw@[2001:db8::7]/selfie"]).keepAliveBehavior?.frequency == .seconds(30))
        #expect(try options(["DATABASE_URL": "postgres://selfie@/selfie?host=/var/run/postgresql"]).keepAliveBehavior == nil)
        #expect(try options(["DATABASE_URL": "postgres://selfie:pw@127.0.0.1.example/selfie"]).keepAliveBehavior?.frequency == .seconds(30))
        #expect(try options(["DATABASE_KEEPALIVE_SECONDS": "120"]).keepAliveBehavior?.frequency == .seconds(120))
        let set = try options(["DATABASE_POOL_SIZE": "5", "DATABASE_URL": "postgres://selfie:pw@db.internal/selfie", "DATABASE_KEEPALIVE_SECONDS": "0"])
        #expect(set.maximumConnections == 5 && set.keepAliveBehavior == nil)
        var environment = complete
        for (size, seconds) in [("0", "-1"), ("1001", "9223372036854775807")] {
            environment["DATABASE_POOL_SIZE"] = size
            environment["DATABASE_KEEPALIVE_SECONDS"] = seconds
            let error = #expect(throws: ConfigurationError.self) { try AppConfiguration.load(from: environment) }
            #expect(error?.problems == [
                "DATABASE_POOL_SIZE must be a whole number from 1 to 1000, got \"\(size)\"",
                "DATABASE_KEEPALIVE_SECONDS must be a whole number of seconds from 0 (never) to 3600, got \"\(seconds)\"",
            ])
        }
    }

    @Test("BLOB_STORE=s3 needs its bucket and credentials, named in the message")
    func s3Configuration() throws {
        var environment = complete
        environment["BLOB_STORE"] = "s3"
        let error = #expect(throws: ConfigurationError.self) { try AppConfiguration.load(from: environment) }
        for name in ["S3_BUCKET_NAME", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] {
            #expect(error?.description.contains("\(name) is missing") == true)
        }
        environment["S3_BUCKET_NAME"] = "photos"
        environment["AWS_ACCESS_KEY_ID"] = "key"
        environment["AWS_SECRET_ACCESS_KEY"] = "secret"
        environment["S3_REGION"] = "eu-west-1"
        guard case .s3(let aws) = try AppConfiguration.load(from: environment).blobStore else {
            Issue.record("expected an S3 store")
            return
        }
        #expect(aws.endpoint.absoluteString == "https://s3.eu-west-1.amazonaws.com")
        #expect(aws.addressing == .virtualHost)
        environment["S3_ENDPOINT"] = "http://127.0.0.1:9000"
        guard case .s3(let local) = try AppConfiguration.load(from: environment).blobStore else { return }
        #expect(local.addressing == .path)
    }

    @Test("a missing SECRET_KEY stops start-up with a message naming it")
    func missingSecretKey() throws {
        var environment = complete
        environment["SECRET_KEY"] = nil
        let error = #expect(throws: ConfigurationError.self) { try AppConfiguration.load(from: environment) }
        #expect(error?.problems.count == 1)
        #expect(error?.description.contains("SECRET_KEY is missing") == true)
    }

    @Test("every missing or invalid variable is named in one message")
    func reportsAllProblems() throws {
        let environment = ["SECRET_KEY": "short", "PORT": "eighty", "PUBLIC_URL": "not a url", "LOG_LEVEL": "loud"]
        let error = #expect(throws: ConfigurationError.self) { try AppConfiguration.load(from: environment) }
        let message = try #require(error?.description)
        for name in ["SECRET_KEY must be at least 32 bytes", "PORT", "PUBLIC_URL", "LOG_LEVEL", "DATABASE_URL is missing",
            "API_AUTH_NAME is missing", "API_AUTH_PASSWORD is missing"]
        {
            #expect(message.contains(name), "message should name \(name): \(message)")
        }
    }

    @Test("an https PUBLIC_URL makes cookies Secure")
    func httpsPublicURL() throws {
        var environment = complete
        environment["PUBLIC_URL"] = "https://selfie.example.com/"
        let config = try AppConfiguration.load(from: environment)
        #expect(config.usesHTTPS)
        #expect(config.publicURL.absoluteString == "https://selfie.example.com")
    }

    @Test("DATABASE_URL parsing: TCP, unix socket, percent-encoded password, bad input")
    func databaseURL() throws {
        let tcp = try DatabaseURL("postgres://me:p%40ss@db.internal:6543/photos?sslmode=require")
        #expect(tcp.host == "db.internal" && tcp.port == 6543 && tcp.password == "p@ss" && tcp.requireTLS)
        let socket = try DatabaseURL("postgresql://me@/photos?host=/var/run/postgresql")
        #expect(socket.unixSocketPath == "/var/run/postgresql" && socket.database == "photos")
        let ipv6 = try DatabaseURL("postgres://me:pw@[::1]:5433/photos")
        #expect(ipv6.host == "::1" && ipv6.port == 5433 && ipv6.keepAlive == nil)
        // An IPv6 zone is percent-decoded for the resolver; a name in punycode stays so, as DNS takes it.
        #expect(try DatabaseURL("postgres://me@[fe80::1%25eth0]/photos").host == "fe80::1%eth0")
        #expect(try DatabaseURL("postgres://me@xn--bcher-kva.example/photos").host == "xn--bcher-kva.example")
        #expect(throws: InvalidValue.self) { try DatabaseURL("mysql://me@host/db") }
        #expect(throws: InvalidValue.self) { try DatabaseURL("postgres://me@host/") }
        #expect(try !DatabaseURL("postgres://me@host/db?sslmode=disable").requireTLS)
        #expect(try !DatabaseURL("postgres://me@host/db").requireTLS)
    }

    @Test("an sslmode this server does not do (prefer, allow, a typo, capitals) stops start-up with a message: it connected without TLS, silently")
    func unknownSSLMode() throws {
        for mode in ["prefer", "allow", "requre", "Require", "VERIFY-FULL", ""] {
            #expect(throws: InvalidValue.self, "sslmode=\(mode)") { try DatabaseURL("postgres://me@db.internal/photos?sslmode=\(mode)") }
        }
        var environment = complete
        environment["DATABASE_URL"] = "postgres://me:pw@db.internal/photos?sslmode=prefer"
        let error = try #require(throws: ConfigurationError.self) { try AppConfiguration.load(from: environment) }
        #expect(error.description.contains("sslmode"), "\(error)")
        #expect(error.description.contains("require"), "the message names what works: \(error)")
    }

    @Test("pg_dump and pg_restore check the database's certificate and name over TLS, as the server's connections do; the password never on their command line")
    func backupToolsCheckTheCertificate() throws {
        for mode in ["require", "verify-ca", "verify-full"] {
            let environment = PostgresTools.environment(for: try DatabaseURL("postgres://me:p%40ss@db.internal:6543/photos?sslmode=\(mode)"), base: ["PATH": "/usr/bin"])
            #expect(environment["PGSSLMODE"] == "verify-full", "sslmode=\(mode)")
            #expect(environment["PGSSLROOTCERT"] == "/etc/ssl/certs/ca-certificates.crt", "the system's trusted roots, as NIOSSL's")
            #expect(environment["PGPASSWORD"] == "p@ss" && environment["PGHOST"] == "db.internal" && environment["PGPORT"] == "6543")
        }
        let chosen = PostgresTools.environment(
            for: try DatabaseURL("postgres://me@db.internal/photos?sslmode=require"), base: ["PGSSLROOTCERT": "/etc/selfie/db-ca.pem"]
        )
        #expect(chosen["PGSSLROOTCERT"] == "/etc/selfie/db-ca.pem", "a root the operator set is kept")
        let local = PostgresTools.environment(for: try DatabaseURL("postgres://me@127.0.0.1/photos"), base: [:])
        #expect(local["PGSSLMODE"] == "disable" && local["PGSSLROOTCERT"] == nil)
    }

    @Test(".env files: comments, quotes, export prefixes")
    func dotEnv() {
        let values = DotEnvFile.parse(
            """
            # generated
            export SECRET_KEY="abc def"
            PORT = 9000
            EMPTY=
            NAME='quoted'
            """
        )
        #expect(values == ["SECRET_KEY": "abc def", "PORT": "9000", "EMPTY": "", "NAME": "quoted"])
    }
}
