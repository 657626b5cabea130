/// A part's header lines as they arrive, up to the empty line that ends them.
struct PartHeaderBlock: Sendable {
    private var bytes: [UInt8] = []
    /// Where the line being received starts in `bytes`.
    private var lineStart = 0

    var isEmpty: Bool { bytes.isEmpty }

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        lineStart = 0
    }

    /// Appends received bytes; the caller passes at most one LF, as the last byte.
    mutating func append(_ received: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: received)
    }

    /// Called once an LF was appended: nil while header lines go on, the parsed headers once the
    /// empty line that ends the block came.
    mutating func lineEnded() throws(MultipartError) -> [(name: String, value: String)]? {
        let lineFeed = bytes.count - 1
        guard lineFeed > lineStart, bytes[lineFeed - 1] == .carriageReturn else { throw .malformedHeaderLine }
        if lineFeed - 1 == lineStart { return try parsedLines(upTo: lineStart) }
        lineStart = bytes.count
        return nil
    }

    /// The `name: value` lines in `bytes[..<end]`, each ending in CRLF. A line starting with a
    /// space or tab continues the previous value (RFC 5322 folding).
    private func parsedLines(upTo end: Int) throws(MultipartError) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        var start = 0
        while start < end {
            var lineEnd = start
            while bytes[lineEnd] != .carriageReturn { lineEnd += 1 }
            // Every CR in the block was checked to precede an LF when that LF came, but a CR in
            // the middle of a line (bare CR) was not.
            guard bytes[lineEnd + 1] == .lineFeed else { throw .malformedHeaderLine }
            let line = bytes[start..<lineEnd]
            start = lineEnd + 2

            if let first = line.first, first == .space || first == .tab {
                guard let last = headers.popLast() else { throw .malformedHeaderLine }
                let more = trimmingSpacesAndTabs(line)
                headers.append((last.name, more.isEmpty ? last.value : last.value + " " + headerText(more)))
                continue
            }
            guard let colon = line.firstIndex(of: .colon), colon > line.startIndex,
                line[..<colon].allSatisfy(\.isTokenCharacter)
            else { throw .malformedHeaderLine }
            headers.append((headerText(line[..<colon]), headerText(trimmingSpacesAndTabs(line[(colon + 1)...]))))
        }
        return headers
    }
}
