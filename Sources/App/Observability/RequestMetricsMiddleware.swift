import Hummingbird
import Metrics
import Synchronization

/// Counts requests and times them, under the names Hummingbird's `MetricsMiddleware` uses
/// (`hb.requests`, `http.server.request.duration`, `hb.request.errors`,
/// `http.server.active_requests`), so dashboards keep working.
///
/// Unlike that middleware it does not wrap the response body in a post-write closure: a wrapped
/// body leaves in three writes (head, body, end) instead of Hummingbird's single batched one,
/// which showed in the profile of the smallest requests. So the duration is the time until the
/// response is ready to send (its head and, for a page or a JSON answer, its whole body); a
/// streamed photo's transfer time is not in it (the request log's `duration_ms` is the same).
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: RequestMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let started = ContinuousClock.now
        let active = metrics.active(for: request.method)
        active.increment()
        do {
            let response = try await next(request, context)
            metrics.route(context.endpointPath ?? "Unknown", method: request.method, status: response.status).record(since: started)
            active.decrement()
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            let route = metrics.route(context.endpointPath ?? "NotFound", method: request.method, status: status)
            route.requests.increment()
            route.errors.increment()
            active.decrement()
            throw error
        }
    }
}

/// The metric objects, made once per method and once per route, method and status: one for the
/// router (`RequestMetricsMiddleware`) and the static files answered on their loop
/// (`StaticAssetsOnTheLoop`), so both count under the same objects.
final class RequestMetrics: Sendable {
    struct Route: Sendable {
        let requests: Counter
        let duration: Timer
        let errors: Counter

        func record(since started: ContinuousClock.Instant) {
            requests.increment()
            let elapsed = (ContinuousClock.now - started).components
            duration.recordNanoseconds(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
        }
    }

    private struct RouteKey: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: Int
    }

    private let meters = Mutex<[HTTPRequest.Method: Meter]>([:])
    private let routes = Mutex<[RouteKey: Route]>([:])

    func active(for method: HTTPRequest.Method) -> Meter {
        meters.withLock { meters in
            if let meter = meters[method] { return meter }
            let meter = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)])
            meters[method] = meter
            return meter
        }
    }

    func route(_ route: String, method: HTTPRequest.Method, status: HTTPResponse.Status) -> Route {
        let key = RouteKey(route: route, method: method, status: status.code)
        return routes.withLock { routes in
            if let found = routes[key] { return found }
            let dimensions = [
                ("http.route", route),
                ("http.request.method", method.rawValue),
                ("http.response.status_code", String(status.code)),
            ]
            let made = Route(
                requests: Counter(label: "hb.requests", dimensions: dimensions),
                duration: Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds),
                errors: Counter(
                    label: "hb.request.errors",
                    dimensions: [("http.route", route), ("http.request.method", method.rawValue), ("error.type", String(status.code))]
                )
            )
            routes[key] = made
            return made
        }
    }
}
