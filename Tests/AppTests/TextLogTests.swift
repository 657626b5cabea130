@testable import App
import Foundation
import Logging
import Synchronization
import Testing

/// `LOG_FORMAT=text`: the lines swift-log's `StreamLogHandler` writes, rendered only when written.
@Suite("Text logs")
struct TextLogTests {
    /// A stream that keeps what `StreamLogHandler` writes.
    final class Kept: TextOutputStream, @unchecked Sendable {
        let lines = Mutex<[String]>([])
        func write(_ string: String) { lines.withLock { $0.append(string) } }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String { "the disk is full" }
    }

    @Test("a line is the one StreamLogHandler writes: the logger's metadata (changed after it was made), the line's own, an error, sorted by key")
    func sameLineAsStreamLogHandler() throws {
        let kept = Kept()
        let ours = Mutex<[String]>([])
        func logAll(_ logger: inout Logger) {
            logger[metadataKey: "hb.request.id"] = "abc123"
            logger[metadataKey: "user"] = "42"
            logger[metadataKey: "user"] = "43"
            logger.info("request", metadata: ["route": "/api/get_photos", "duration_ms": "1.5"])
            logger.warning("upload failed", error: Failure(), metadata: ["tags": ["a", "b"]])
            logger.debug("below the level: not written")
            logger.error("no metadata of its own")
        }
        // Both within the same second, so their timestamps agree; a second boundary between them retries.
        for _ in 0..<5 {
            kept.lines.withLock { $0.removeAll() }
            ours.withLock { $0.removeAll() }
            var stream = Logger(label: "selfie") { StreamLogHandler(label: $0, stream: kept, metadataProvider: nil) }
            var text = Logger(label: "selfie") { TextLogHandler(label: $0) { line in ours.withLock { $0.append(line) } } }
            logAll(&stream)
            logAll(&text)
            if kept.lines.withLock({ $0 }) == ours.withLock({ $0 }) { break }
        }
        let expected = kept.lines.withLock { $0 }
        let written = ours.withLock { $0 }
        #expect(written.count == 3)
        #expect(written == expected)
        #expect(written.first?.contains(": duration_ms=1.5 hb.request.id=abc123 route=/api/get_photos user=43 [AppTests] request\n") == true, "\(written)")
        #expect(written.dropFirst().first?.contains("error.message=the disk is full") == true, "\(written)")
    }
}
