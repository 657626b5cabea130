import Foundation
import Logging
import SMTP

/// Everything Selfie reads from its environment, validated once at start-up.
///
/// `load(from:)` collects every problem before failing, so an operator fixes them all in one go.
/// No secret has a default: `make run` writes generated development values to `.env`.
public struct AppConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Absolute base URL for links the server hands out (no trailing slash).
    public var publicURL: URL
    public var secretKey: SecretKey
    public var database: DatabaseURL
    public var apiAuthName: String
    public var apiAuthPassword: String
    public var logLevel: Logger.Level
    /// How long a browser session lives after sign-in.
    public var sessionLifetime: Duration
    /// bcrypt work factor; never below 12 outside tests of the hashing code itself.
    public var bcryptCost: UInt8
    /// Where photos are stored.
    public var blobStore: BlobStoreConfiguration
    /// Size, concurrency and time limits on uploads (`MAX_UPLOAD_BYTES`, `MAX_CONCURRENT_UPLOADS`,
    /// `MAX_CONCURRENT_UPLOADS_PER_USER`, `UPLOAD_TIMEOUT_SECONDS`).
    public var uploads: UploadLimits
    /// The processes that decode photos (`IMAGE_WORKER_PATH`, `IMAGE_WORKER_MEMORY_MB`, `IMAGE_WORKER_TIMEOUT_SECONDS`).
    public var imageWorkers = ImageWorkerSettings()
    /// The largest photo accepted, in bytes (`MAX_UPLOAD_BYTES`).
    public var maxUploadBytes: Int {
        get { uploads.maxBytes }
        set { uploads.maxBytes = newValue }
    }
    /// How long a signed image URL stays valid.
    public var signedURLLifetime: Duration
    /// How many days a deleted photo stays in the trash (`TRASH_DAYS`); 0 deletes at once.
    public var trashDays = 30
    /// How long a session or token looked up is kept in memory (`ACCESS_CACHE_SECONDS`, default
    /// 30; 0 turns the cache off). Changes reach every instance at once (`AccessChangeListener`).
    public var accessCacheLifetime: Duration = .seconds(30)
    /// Where the access-change listener connects (`DATABASE_LISTEN_URL`), when `DATABASE_URL` goes
    /// through a pooler that does not pass notifications on (PgBouncer in transaction mode); nil:
    /// `DATABASE_URL`.
    public var listenDatabase: DatabaseURL?
    /// How long an API token lives (`TOKEN_TTL_SECONDS`).
    public var tokenLifetime: Duration
    /// Lockout and rate limits (`LOCKOUT_*`, `RATE_LIMIT_*`).
    public var protection: ProtectionConfiguration
    /// When set, Prometheus metrics are served on this port at /metrics, on `metricsHost`.
    public var metricsPort: Int?
    /// `METRICS_HOST`: the interface of the metrics port (127.0.0.1 unless a container needs more).
    public var metricsHost = "127.0.0.1"
    /// `TRUSTED_PROXIES`: whose `Forwarded` / `X-Forwarded-*` headers are believed.
    public var trustedProxies = TrustedProxies.none
    /// `CLIENT_IP_HEADER`: the forwarding header the trusted proxies set (the only one read).
    public var clientIPHeader = ClientIPHeader.xForwardedFor
    /// `LOG_FORMAT`: `text` (one readable line) or `json` (one object per line).
    public var logFormat = LogFormat.text
    /// `DRAIN_SECONDS`: after SIGTERM, how long `/readyz` answers 503 (so that load balancers stop
    /// sending) before the listener closes; in-flight requests then finish.
    public var drainGrace: Duration = .seconds(3)
    /// `SHUTDOWN_TIMEOUT_SECONDS`: after the drain, how long in-flight requests and background work
    /// get to finish before they are cancelled, so that the process always exits (an upload cut off
    /// then leaves nothing behind, like any failed upload).
    public var shutdownTimeout: Duration = .seconds(15)
    /// How long a form's or an API call's body may take to arrive, then a 408 (not a setting:
    /// tests shorten it). Uploads have `uploads.deadline`.
    public var smallBodyDeadline: Duration = .seconds(30)
    /// How long an answer may wait on a client that reads none of it before its connection is
    /// closed (not a setting: tests shorten it).
    public var stalledReaderTimeout: Duration = .seconds(60)
    /// Sign-in with Apple, Google, an OpenID Connect issuer, Facebook, Twitter (all off by default).
    public var social: SocialConfiguration
    /// How mail is sent (`MAIL_TRANSPORT`, `SMTP_URL`, `SMTP_CA_FILE`, `MAIL_FROM`) and whether sign-in
    /// waits for a confirmed address (`REQUIRE_VERIFIED_EMAIL`).
    public var mail: MailConfiguration

    /// Cookies get `Secure` when the public URL is https.
    public var usesHTTPS: Bool { publicURL.scheme?.lowercased() == "https" }

    /// Whether the public URL is reached from other machines (not `localhost` or a loopback
    /// address, as on a developer's machine): a real deployment, whose mail links must not be
    /// written to the log.
    public var isPublicSite: Bool { !DatabaseURL.isLoopback(publicURL.host ?? "") }

    public init(
        host: String,
        port: Int,
        publicURL: URL,
        secretKey: SecretKey,
        database: DatabaseURL,
        apiAuthName: String,
        apiAuthPassword: String,
        logLevel: Logger.Level = .info,
        sessionLifetime: Duration = .seconds(30 * 24 * 3600),
        bcryptCost: UInt8 = 12,
        blobStore: BlobStoreConfiguration = .filesystem(directory: "data/blobs"),
        uploads: UploadLimits = UploadLimits(),
        signedURLLifetime: Duration = .seconds(3600),
        tokenLifetime: Duration = .seconds(86400),
        protection: ProtectionConfiguration = ProtectionConfiguration(),
        metricsPort: Int? = nil,
        social: SocialConfiguration = SocialConfiguration(),
        mail: MailConfiguration = MailConfiguration(from: MailConfiguration.defaultFrom)
    ) {
        self.mail = mail
        self.host = host
        self.port = port
        self.publicURL = publicURL
        self.secretKey = secretKey
        self.database = database
        self.apiAuthName = apiAuthName
        self.apiAuthPassword = apiAuthPassword
        self.logLevel = logLevel
        self.sessionLifetime = sessionLifetime
        self.bcryptCost = bcryptCost
        self.blobStore = blobStore
        self.uploads = uploads
        self.signedURLLifetime = signedURLLifetime
        self.tokenLifetime = tokenLifetime
        self.protection = protection
        self.metricsPort = metricsPort
        self.social = social
    }

    /// Reads and validates the configuration, naming every missing or invalid variable at once.
    public static func load(from environment: [String: String]) throws(ConfigurationError) -> AppConfiguration {
        var problems: [String] = []
        func value(_ name: String) -> String? {
            guard let raw = environment[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
            return raw
        }
        func required(_ name: String, _ meaning: String) -> String? {
            guard let raw = value(name) else {
                problems.append("\(name) is missing (\(meaning))")
                return nil
            }
            return raw
        }

        let host = value("HOST") ?? "127.0.0.1"
        var port = 8080
        if let raw = value("PORT") {
            if let parsed = Int(raw), (0...65535).contains(parsed) {
                port = parsed
            } else {
                problems.append("PORT must be a number from 0 to 65535, got \"\(raw)\"")
            }
        }

        var publicURL = URL(string: "http://\(host):\(port)")!
        if let raw = value("PUBLIC_URL") {
            let trimmed = raw.hasSuffix("/") ? String(raw.dropLast()) : raw
            if let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                url.host != nil
            {
                publicURL = url
            } else {
                problems.append("PUBLIC_URL must be an absolute http(s) URL, got \"\(raw)\"")
            }
        }

        var secretKey: SecretKey?
        if let raw = required("SECRET_KEY", "at least 32 random bytes; signs URLs, CSRF tokens and share-link unlocks, and seals authenticator secrets") {
            do {
                secretKey = try SecretKey(raw)
            } catch {
                problems.append("SECRET_KEY \(error.reason)")
            }
        }

        var database: DatabaseURL?
        if let raw = required("DATABASE_URL", "postgres://user:password@host:port/database") {
            do {
                database = try DatabaseURL(raw)
            } catch {
                problems.append("DATABASE_URL \(error.reason)")
            }
        }
        if let raw = value("DATABASE_POOL_SIZE") {
            if let size = Int(raw), (1...1000).contains(size) {
                database?.maximumConnections = size
            } else {
                problems.append("DATABASE_POOL_SIZE must be a whole number from 1 to 1000, got \"\(raw)\"")
            }
        }

        let apiAuthName = required("API_AUTH_NAME", "the mobile app's key name, sent with HTTP Basic")
        let apiAuthPassword = required("API_AUTH_PASSWORD", "the mobile app's key password, also its AESCrypt key")

        var logLevel = Logger.Level.info
        if let raw = value("LOG_LEVEL") {
            if let level = Logger.Level(rawValue: raw.lowercased()) {
                logLevel = level
            } else {
                problems.append("LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical")
            }
        }

        let uploads = UploadLimits.load(value: value, problems: &problems)
        let imageWorkers = ImageWorkerSettings.load(value: value, problems: &problems)
        let blobStore = BlobStoreConfiguration.load(value: value, problems: &problems)
        let protection = ProtectionConfiguration.load(value: value, problems: &problems)
        let social = SocialConfiguration.load(value: value, problems: &problems)
        let mail = MailConfiguration.load(value: value, problems: &problems)
        var trustedProxies = TrustedProxies.none
        if let raw = value("TRUSTED_PROXIES") {
            let (parsed, invalid) = TrustedProxies.parse(raw)
            if invalid.isEmpty {
                trustedProxies = parsed
            } else {
                problems.append("TRUSTED_PROXIES must list addresses or CIDR blocks (10.0.0.0/8, fd00::/8), not \(invalid.map { "\"\($0)\"" }.joined(separator: ", "))")
            }
        }
        var clientIPHeader = ClientIPHeader.xForwardedFor
        if let raw = value("CLIENT_IP_HEADER") {
            if let parsed = ClientIPHeader(rawValue: raw.lowercased()) {
                clientIPHeader = parsed
            } else {
                problems.append("CLIENT_IP_HEADER must be x-forwarded-for or forwarded (the header your proxy sets), got \"\(raw)\"")
            }
        }
        let metricsHost = value("METRICS_HOST") ?? "127.0.0.1"
        if IPAddress(metricsHost) == nil {
            problems.append("METRICS_HOST must be an IP address to listen on (0.0.0.0 for every interface), got \"\(metricsHost)\"")
        }
        var logFormat = LogFormat.text
        if let raw = value("LOG_FORMAT") {
            if let format = LogFormat(rawValue: raw.lowercased()) { logFormat = format } else {
                problems.append("LOG_FORMAT must be text or json, got \"\(raw)\"")
            }
        }
        var drainGrace = Duration.seconds(3)
        if let raw = value("DRAIN_SECONDS") {
            if let seconds = Int(raw), (0...300).contains(seconds) { drainGrace = .seconds(seconds) } else {
                problems.append("DRAIN_SECONDS must be a whole number of seconds from 0 to 300, got \"\(raw)\"")
            }
        }
        var shutdownTimeout = Duration.seconds(15)
        if let raw = value("SHUTDOWN_TIMEOUT_SECONDS") {
            if let seconds = Int(raw), (1...3600).contains(seconds) { shutdownTimeout = .seconds(seconds) } else {
                problems.append("SHUTDOWN_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 3600, got \"\(raw)\"")
            }
        }
        var metricsPort: Int?
        if let raw = value("METRICS_PORT") {
            if let parsed = Int(raw), (1...65535).contains(parsed), parsed != port {
                metricsPort = parsed
            } else {
                problems.append("METRICS_PORT must be a port number other than PORT's, got \"\(raw)\"")
            }
        }
        var tokenLifetime = Duration.seconds(86400)
        if let raw = value("TOKEN_TTL_SECONDS") {
            if let seconds = Int(raw), seconds >= 60 {
                tokenLifetime = .seconds(seconds)
            } else {
                problems.append("TOKEN_TTL_SECONDS must be a whole number of seconds, at least 60, got \"\(raw)\"")
            }
        }
        if let raw = value("DATABASE_KEEPALIVE_SECONDS") {
            if let seconds = Int(raw), (0...3600).contains(seconds) {
                database?.keepAlive = seconds == 0 ? nil : .seconds(seconds)
            } else {
                problems.append("DATABASE_KEEPALIVE_SECONDS must be a whole number of seconds from 0 (never) to 3600, got \"\(raw)\"")
            }
        }
        if let raw = value("DATABASE_PREPARED_STATEMENTS") {
            switch raw.lowercased() {
            case "on", "true", "1": database?.preparedStatements = true
            case "off", "false", "0": database?.preparedStatements = false
            default: problems.append("DATABASE_PREPARED_STATEMENTS must be on or off (off behind PgBouncer before 1.21 in transaction mode), got \"\(raw)\"")
            }
        }
        var accessCacheLifetime = Duration.seconds(30)
        if let raw = value("ACCESS_CACHE_SECONDS") {
            if let seconds = Int(raw), (0...300).contains(seconds) { accessCacheLifetime = .seconds(seconds) } else {
                problems.append("ACCESS_CACHE_SECONDS must be a whole number of seconds from 0 (no cache) to 300, got \"\(raw)\"")
            }
        }
        var listenDatabase: DatabaseURL?
        if let raw = value("DATABASE_LISTEN_URL") {
            do {
                listenDatabase = try DatabaseURL(raw)
            } catch {
                problems.append("DATABASE_LISTEN_URL \(error.reason)")
            }
        }
        var trashDays = 30
        if let raw = value("TRASH_DAYS") {
            if let days = Int(raw), (0...3650).contains(days) { trashDays = days } else {
                problems.append("TRASH_DAYS must be a whole number of days from 0 (delete at once) to 3650, got \"\(raw)\"")
            }
        }

        guard problems.isEmpty, let secretKey, let database, let apiAuthName, let apiAuthPassword, let blobStore else {
            throw ConfigurationError(problems: problems)
        }
        var configuration = AppConfiguration(
            host: host,
            port: port,
            publicURL: publicURL,
            secretKey: secretKey,
            database: database,
            apiAuthName: apiAuthName,
            apiAuthPassword: apiAuthPassword,
            logLevel: logLevel,
            blobStore: blobStore,
            uploads: uploads,
            tokenLifetime: tokenLifetime,
            protection: protection,
            metricsPort: metricsPort,
            social: social,
            mail: mail
        )
        configuration.metricsHost = metricsHost
        configuration.imageWorkers = imageWorkers
        configuration.trustedProxies = trustedProxies
        configuration.clientIPHeader = clientIPHeader
        configuration.drainGrace = drainGrace
        configuration.shutdownTimeout = shutdownTimeout
        configuration.logFormat = logFormat
        configuration.trashDays = trashDays
        configuration.accessCacheLifetime = accessCacheLifetime
        configuration.listenDatabase = listenDatabase
        return configuration
    }
}

/// Start-up refused: every variable that is missing or invalid, one per line.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let problems: [String]

    public var description: String {
        "Selfie cannot start, its configuration is incomplete:\n"
            + problems.map { "  - \($0)" }.joined(separator: "\n")
            + "\nSet these in the environment or in .env (`make run` generates development values)."
    }
}

/// A single variable's value was rejected; `reason` completes "NAME …".
public struct InvalidValue: Error {
    public let reason: String
}

/// How log lines are written (`LOG_FORMAT`).
public enum LogFormat: String, Sendable {
    case text
    case json
}
