import Logging
import SelfieCore

/// What every answer gets, whether the router gives it or `StaticAssetsOnTheLoop` does: the
/// security headers, a log line, and the request metrics (one set of metric objects for both).
struct EveryAnswer: Sendable {
    let securityHeaders: SecurityHeaders
    let log = RequestLogLine()
    let metrics = RequestMetrics()

    init(config: AppConfiguration) {
        securityHeaders = SecurityHeaders(config: config)
    }
}
