import Logging
import Synchronization

/// Collects every log line (message and metadata) so tests can check what was and wasn't logged.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { self.lines.withLock { $0 } }

    func append(_ line: String) {
        self.lines.withLock { $0.append(line) }
    }

    /// A logger at trace level writing into this capture.
    func logger() -> Logger {
        var logger = Logger(label: "smtp-test") { _ in CapturingLogHandler(capture: self) }
        logger.logLevel = .trace
        return logger
    }
}

struct CapturingLogHandler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = self.metadata.merging(event.metadata ?? [:]) { $1 }
        self.capture.append("\(event.level) \(event.message) \(merged)")
    }
}
