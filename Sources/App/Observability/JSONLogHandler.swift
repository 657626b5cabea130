import Foundation
import Logging
import SelfieCore
import Synchronization

/// `LOG_FORMAT=json`: one JSON object per line, for log collectors — `time` (UTC, milliseconds),
/// `level`, `message`, `logger`, then the metadata. The request line's well-known keys get plain
/// names and numbers: `request_id`, `method`, `path`, `route`, `status`, `duration_ms`, `user_id`.
/// What is logged is what the text format logs (no bodies, no query values, no secrets); this only
/// changes its shape.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    /// Where each finished line (with its newline) goes.
    let write: @Sendable (String) -> Void

    init(label: String, metadataProvider: Logger.MetadataProvider? = nil, write: @escaping @Sendable (String) -> Void = LogOutput.standardError) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Renamed keys, and whether their values are numbers.
    static let wellKnown: [String: (name: String, number: Bool)] = [
        "hb.request.id": ("request_id", false),
        "hb.request.method": ("method", false),
        "hb.request.path": ("path", false),
        "hb.response.status": ("status", true),
        "duration_ms": ("duration_ms", true),
        "route": ("route", false),
        "user": ("user_id", true),
    ]

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        var line = "{\"time\":"
        Self.appendString(Self.timestamp(Date()), to: &line)
        line += ",\"level\":"
        Self.appendString(event.level.rawValue, to: &line)
        line += ",\"message\":"
        Self.appendString(event.message.description, to: &line)
        line += ",\"logger\":"
        Self.appendString(label, to: &line)
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            let known = Self.wellKnown[key]
            line += ","
            Self.appendString(known?.name ?? key, to: &line)
            line += ":"
            let text = Self.flatten(value)
            if known?.number == true, Self.isJSONNumber(text) {
                line += text
            } else {
                Self.appendString(text, to: &line)
            }
        }
        line += "}\n"
        write(line)
    }

    /// Plain decimal numbers only (`Double` would also take `nan` and `inf`, which JSON has not).
    static func isJSONNumber(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || (48...57).contains($0) }
            && Double(text) != nil
    }

    static func flatten(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array, .dictionary: value.description
        }
    }

    /// Appends `text` as a JSON string: quotes, backslashes and control characters escaped.
    static func appendString(_ text: String, to line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                line += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }
}

extension Logger {
    /// The server's logger in the chosen format and level.
    public static func selfie(format: LogFormat, level: Logger.Level) -> Logger {
        var logger = switch format {
        case .text: Logger(label: "selfie") { TextLogHandler(label: $0) }
        case .json: Logger(label: "selfie") { JSONLogHandler(label: $0) }
        }
        logger.logLevel = level
        return logger
    }
}
