import Logging
import Metrics

/// PostgresNIO (1.33) reports its connection pool's events only to the client's background logger:
/// "Creating new connection", "Connection creation failed", "Connection closed". This handler
/// turns them into metrics — connections open (or opening) and failed connection attempts — and
/// passes everything at or above the wrapped handler's level on to it. (The pool reports no
/// lease events, so connections in use cannot be counted this way.)
struct PoolMetricsLogHandler: LogHandler {
    var wrapped: any LogHandler

    private static let open = Meter(label: "selfie_db_pool_open_connections")
    private static let failedAttempts = Counter(label: "selfie_db_pool_connect_failures_total")

    /// Debug at least, so the pool's events arrive here even when the log shows less.
    var logLevel: Logger.Level {
        get { min(wrapped.logLevel, .debug) }
        set { wrapped.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        switch event.message.description {
        case "Creating new connection": Self.open.increment()
        case "Connection closed": Self.open.decrement()
        case "Connection creation failed":
            Self.open.decrement()
            Self.failedAttempts.increment()
        default: break
        }
        guard event.level >= wrapped.logLevel else { return }
        wrapped.log(event: event)
    }
}

extension Logger {
    /// This logger, also counting the PostgreSQL pool's events as metrics.
    func countingPoolEvents() -> Logger {
        var logger = self
        logger.handler = PoolMetricsLogHandler(wrapped: handler)
        return logger
    }
}
