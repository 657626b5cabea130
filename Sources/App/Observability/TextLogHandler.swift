import Foundation
import Logging
import Synchronization

/// `LOG_FORMAT=text`, the default: swift-log's `StreamLogHandler` line to standard error,
/// `<local time> <level> <label>: <key=value …> [<source>] <message>`. Unlike `StreamLogHandler`, the
/// metadata is rendered when a line is written, not every time it changes: Hummingbird gives every
/// request's logger its request id, and rendering the whole metadata then cost 4 % of the CPU of a
/// request for a static file, whether or not anything was logged for it.
struct TextLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    /// Where each finished line (with its newline) goes.
    let write: @Sendable (String) -> Void

    init(label: String, write: @escaping @Sendable (String) -> Void = LogOutput.standardError) {
        self.label = label
        self.write = write
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        var line = Self.timestamp() + " \(event.level)"
        if !label.isEmpty { line += " " + label }
        line += ":"
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        line += " [\(event.source)] \(event.message)\n"
        write(line)
    }

    /// Local time to the second with the zone's offset, as `StreamLogHandler` writes it.
    static func timestamp() -> String {
        var now = time(nil)
        var local = tm()
        guard localtime_r(&now, &local) != nil else { return "<unknown>" }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

enum LogOutput {
    /// Lines written whole to standard error, whichever format they are in: one `write` each
    /// unless the pipe takes less (a long line), then the rest, with no other thread's line in
    /// between; a write a signal interrupted is made again.
    @Sendable static func standardError(_ line: String) {
        var bytes = Array(line.utf8)
        writing.withLock { _ in
            bytes.withUnsafeMutableBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Foundation.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    if written <= 0 { return }
                    offset += written
                }
            }
        }
    }

    private static let writing = Mutex(())
}
