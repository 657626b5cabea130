import Hummingbird
import Logging
import NIOCore

/// What a page needs from its request context to draw the shared layout.
public protocol PageContext: RequestContext {
    var signedInUser: User? { get }
    var csrfToken: String { get }
}

/// The context of every request. `WebSessionMiddleware` fills in the browser session (if any)
/// and the CSRF token that forms on the page must send back.
public struct AppRequestContext: PageContext {
    public var coreContext: CoreRequestContextStorage
    /// Peer IP address as seen on the socket.
    public let remoteAddress: String
    public var session: ActiveSession?
    public var csrfToken: String = ""
    /// The browser sent a session cookie that no longer matches a live session (expired, signed
    /// out elsewhere): its forms are answered with "sign in again", not a CSRF error.
    public var hasStaleSession = false
    /// Set by `AppKeyMiddleware` on the API's app-key routes.
    public var appKey: AppKey?
    /// Set by `APITokenMiddleware` on the API's token routes.
    public var apiToken: AuthenticatedToken?
    /// Set with `appKey` or `apiToken`: where the API request came from, for the audit log.
    public var origin: RequestOrigin?

    public var signedInUser: User? { session?.user }

    /// The most any handler collects into memory (forms, JSON). Photo uploads stream instead and
    /// have their own limit.
    public var maxUploadSize: Int { 64 * 1024 }

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress ?? ""
    }
}

/// The context of pages that need a signed-in user: creating it fails without one, so a handler
/// in a `SignedInContext` group cannot forget the check.
public struct SignedInContext: ChildRequestContext, PageContext {
    public var coreContext: CoreRequestContextStorage
    public let session: ActiveSession
    public let remoteAddress: String
    public let csrfToken: String

    public var user: User { session.user }
    public var signedInUser: User? { session.user }

    public init(context: AppRequestContext) throws {
        guard let session = context.session else { throw SignInRequired() }
        self.coreContext = context.coreContext
        self.session = session
        self.remoteAddress = context.remoteAddress
        self.csrfToken = context.csrfToken
    }
}

/// Thrown when a page needs a signed-in user and there is none: browsers are sent to sign in.
struct SignInRequired: Error {}
