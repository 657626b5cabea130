import Logging

/// The logger of the request being served, for code far from the request (repositories,
/// services): the HTTP layer binds it for the whole handling of a request, so every log line —
/// SQL included — carries the request's id.
public enum RequestLogger {
    @TaskLocal public static var current: Logger?
}

/// A logger that follows the request when there is one: `RequestLogger.current`, else the
/// logger the component was made with (background work, command-line tools).
public struct ScopedLogger: Sendable {
    let fallback: Logger

    public init(_ fallback: Logger) {
        self.fallback = fallback
    }

    public var current: Logger { RequestLogger.current ?? fallback }
}
