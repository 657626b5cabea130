import Hummingbird
import NIOCore

/// The context every request starts with, whatever surface serves it: the peer's address and
/// the connection, before any surface adds what it needs (a session, an app key, a token).
struct AppRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The TCP peer's IP address.
    let peerAddress: String
    /// The client's IP address: the peer's, or behind a trusted proxy the one it names
    /// (`ClientAddressMiddleware`).
    var remoteAddress: String
    /// `https` when the client connected over TLS (to a trusted proxy that says so), else `http`.
    var scheme = "http"
    /// The connection, to close it when a refused request's body will not be read.
    let channel: any Channel

    /// The most any handler collects into memory (forms, JSON). Photo uploads stream instead and
    /// have their own limit.
    var maxUploadSize: Int { 64 * 1024 }

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.peerAddress = source.channel.remoteAddress?.ipAddress ?? ""
        self.remoteAddress = peerAddress
        self.channel = source.channel
    }
}

/// A request context that knows the client's address (for rate limits and the audit log).
protocol ClientAddressProviding: RequestContext {
    var remoteAddress: String { get }
}

extension AppRequestContext: ClientAddressProviding {}
