import Foundation

/// Reads `KEY=value` lines from a `.env` file. Real environment variables win over the file.
public enum DotEnvFile {
    /// The process environment layered over the file at `path` (missing file: environment only).
    public static func environment(overlaying path: String = ".env") -> [String: String] {
        var merged: [String: String] = [:]
        if let contents = try? String(contentsOfFile: path, encoding: .utf8) {
            merged = parse(contents)
        }
        merged.merge(ProcessInfo.processInfo.environment) { _, process in process }
        return merged
    }

    /// Parses `KEY=value` lines; blank lines and `#` comments are ignored, one pair of
    /// surrounding quotes is removed, `export ` prefixes are allowed.
    public static func parse(_ contents: String) -> [String: String] {
        var values: [String: String] = [:]
        for rawLine in contents.split(whereSeparator: \.isNewline) {
            var line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line.removeFirst("export ".count) }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            if !key.isEmpty { values[key] = value }
        }
        return values
    }
}
