import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import SelfieCore
import Synchronization

/// Logs one line per request — method, path, the *names* of its query parameters, status and
/// duration — and makes the request's logger (with its id) the one every repository and service
/// logs with while the request is handled.
///
/// Query values are never logged: they carry credentials (`/api/get_token?password=…`), signed
/// media URLs (`sig=`, 75 minutes of access to a private photo), `_csrf` and OAuth's `code` and
/// `state`. Nor are bodies or headers.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let line: RequestLogLine

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let started = ContinuousClock.now
        let facts = RequestFacts()
        return try await RequestFacts.$current.withValue(facts) {
            try await RequestLogger.$current.withValue(context.logger) {
                do {
                    let response = try await next(request, context)
                    log(request, context: context, status: response.status.code, facts: facts, since: started)
                    return response
                } catch {
                    let status = (error as? any HTTPResponseError)?.status.code ?? 500
                    log(request, context: context, status: status, facts: facts, since: started)
                    throw error
                }
            }
        }
    }

    private func log(_ request: Request, context: Context, status: Int, facts: RequestFacts, since started: ContinuousClock.Instant) {
        line.write(
            to: context.logger,
            method: request.method,
            uri: request.uri,
            status: status,
            route: context.endpointPath,
            user: facts.userID,
            since: started
        )
    }
}

/// The line logged for each request — method, path, the *names* of its query parameters, status,
/// route, user and duration — by `RequestLogMiddleware` and, for the static files it answers
/// itself, by `StaticAssetsOnTheLoop`.
struct RequestLogLine: Sendable {
    var level: Logger.Level = .info

    /// `requestID`: for a request the router did not see, whose logger has no id yet.
    func write(
        to logger: Logger,
        requestID: RequestID? = nil,
        method: HTTPRequest.Method,
        uri: @autoclosure () -> URI,
        status: Int,
        route: String?,
        user: Int64?,
        since started: ContinuousClock.Instant
    ) {
        // The line's metadata is built only when it will be written (not at LOG_LEVEL=warning).
        guard logger.logLevel <= level else { return }
        var logger = logger
        if let requestID { logger[metadataKey: "hb.request.id"] = .stringConvertible(requestID) }
        let uri = uri()
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        var metadata: Logger.Metadata = [
            "hb.request.method": "\(method.rawValue)",
            "hb.request.path": "\(uri.loggedPath)",
            "hb.response.status": "\(status)",
            "duration_ms": "\((milliseconds * 10).rounded() / 10)",
        ]
        if let route { metadata["route"] = "\(route)" }
        if let user { metadata["user"] = "\(user)" }
        let keys = Self.queryKeys(of: uri)
        if !keys.isEmpty { metadata["hb.request.query_keys"] = "\(keys.joined(separator: ","))" }
        logger.log(level: level, "request", metadata: metadata)
    }

    /// The most names a line lists; a request line may carry thousands (`(+N more)` counts them).
    static let listedQueryKeys = 32
    /// The most characters of one name a line writes (then `…`): one name may be 80 KB long.
    static let listedNameLength = 64

    /// The names of the query parameters, without their values, each once, in order: the first
    /// `listedQueryKeys`, each cut at `listedNameLength`, then how many more distinct names there were.
    static func queryKeys(of uri: URI) -> [String] {
        var seen = Set<Substring>()
        var listed: [String] = []
        for (name, _) in uri.queryParameters where seen.insert(name).inserted {
            if listed.count < listedQueryKeys {
                listed.append(name.count > listedNameLength ? name.prefix(listedNameLength) + "…" : String(name))
            }
        }
        if seen.count > listed.count { listed.append("(+\(seen.count - listed.count) more)") }
        return listed
    }
}

/// What the handlers learn about a request that its log line reports: who is signed in.
final class RequestFacts: Sendable {
    @TaskLocal static var current: RequestFacts?
    private let user = Mutex<Int64?>(nil)

    var userID: Int64? { user.withLock { $0 } }

    /// Records the signed-in user of the current request (a session or an API token).
    static func signedIn(_ id: Int64) { current?.user.withLock { $0 = id } }
}
