/// Where and how to reach the SMTP relay. Usually built from a URL with ``init(url:)``.
public struct SMTPConfiguration: Sendable {
    /// How the connection is protected.
    public enum Security: Sendable, Equatable {
        /// TLS from the first byte (`smtps://`, port 465 by default).
        case implicitTLS
        /// STARTTLS must succeed before MAIL or AUTH; chosen whenever credentials are given.
        case startTLSRequired
        /// STARTTLS when the server offers it, plain text otherwise (`smtp://` without credentials).
        case startTLSIfOffered
        /// Never TLS (`?starttls=off`): for a local test sink only. AUTH is never sent without TLS.
        case none
    }

    /// User name and password for AUTH; their descriptions never show the password.
    /// (Mirror-based dumps such as `dump(_:)` still would: don't dump configurations.)
    public struct Credentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        public var username: String
        public var password: String

        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }

        public var description: String { "\(self.username) (password hidden)" }
        public var debugDescription: String { self.description }
    }

    /// Time limits; a send fails with a transient ``SMTPError`` of kind `.timeout` when one runs out.
    public struct Timeouts: Sendable, Equatable {
        /// TCP connect (and DNS) time.
        public var connect: Duration
        /// Wait for each server reply, counted from the moment the command is written.
        public var reply: Duration
        /// The whole send, from connect to the reply after the message data.
        public var total: Duration

        public init(connect: Duration = .seconds(10), reply: Duration = .seconds(30), total: Duration = .seconds(90)) {
            self.connect = connect
            self.reply = reply
            self.total = total
        }
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var credentials: Credentials?
    /// Name checked against the server certificate and sent as SNI, when it differs from `host`
    /// (e.g. `host` is an IP address, or a tunnel).
    public var tlsServerName: String?
    /// A PEM file of extra CA certificates trusted besides the system ones (a private relay, tests).
    public var additionalTrustRootsFile: String?
    /// Name announced in EHLO; by default the address literal of the local socket (`[192.0.2.1]`),
    /// which RFC 5321 allows when the client has no meaningful host name.
    public var ehloName: String?
    public var timeouts: Timeouts

    public init(
        host: String,
        port: Int,
        security: Security,
        credentials: Credentials? = nil,
        tlsServerName: String? = nil,
        additionalTrustRootsFile: String? = nil,
        ehloName: String? = nil,
        timeouts: Timeouts = Timeouts()
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.credentials = credentials
        self.tlsServerName = tlsServerName
        self.additionalTrustRootsFile = additionalTrustRootsFile
        self.ehloName = ehloName
        self.timeouts = timeouts
    }
}

extension SMTPConfiguration: CustomStringConvertible {
    /// A log-safe summary: shows neither the user name nor the password.
    public var description: String {
        let scheme = self.security == .implicitTLS ? "smtps" : "smtp"
        let auth = self.credentials == nil ? "no AUTH" : "AUTH"
        return "\(scheme)://\(self.host):\(self.port) (\(self.security), \(auth))"
    }
}
