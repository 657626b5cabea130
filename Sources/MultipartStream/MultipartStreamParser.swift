import NIOCore

/// A push parser for `multipart/*` bodies (RFC 2046 §5.1.1) that streams: feed it the body's
/// chunks as they arrive and it returns what they completed. Body bytes come out as views of the
/// fed chunks, found by a vectorised search over whole chunks, never byte by byte. Only a tail
/// that may start a delimiter split across chunks is held back until the next chunk tells: at
/// most 3 + boundary-length bytes (CRLF, `--` and all but the last boundary byte).
///
/// Lines end in CRLF, as the RFC says (LF-only bodies are rejected). Spaces and tabs after a
/// boundary (transport padding) are allowed, the preamble before the first boundary and the
/// epilogue after the closing one are skipped, and a body holding only the closing boundary (what
/// browsers send for a form without fields) yields no events.
///
/// Nothing blocks: a 64 KiB chunk takes microseconds, so it is fine to call from async code.
public struct MultipartStreamParser: Sendable {
    private enum State: Sendable {
        /// Before the first boundary: bytes are skipped.
        case preamble
        /// In a part's body: bytes are handed out.
        case body
        /// After a boundary, before the CRLF that ends its line (or the `--` that ends the body).
        case boundaryLine(BoundaryLine)
        /// Receiving a part's header lines (into `headerBlock`).
        case headers
        /// After the closing boundary: everything is ignored.
        case epilogue
        /// A call threw; the body is unusable.
        case failed(MultipartError)
    }

    private enum BoundaryLine: Sendable {
        case start, firstHyphen, padding, carriageReturn
    }

    private let delimiter: Delimiter
    private let maxHeaderBytes: Int
    private let maxPreambleBytes: Int
    private var state = State.preamble
    /// How many of the delimiter's first bytes ended the previous chunk (held back, not handed out).
    /// The body is read as if it started with CRLF, so that a first boundary on the very first
    /// line is found like every other.
    private var heldBack = 2
    /// Starts below zero: the two bytes of the imagined CRLF are not the client's.
    private var preambleBytes = -2
    /// Bytes since the last boundary, while in its line or the header block after it.
    private var headerBytes = 0
    private var headerBlock = PartHeaderBlock()
    private var partIsOpen = false

    /// A parser for a body whose parts are separated by `boundary` (the Content-Type parameter).
    /// - Parameters:
    ///   - maxHeaderBytes: most bytes a part's header block (with its boundary line's end) may have.
    ///   - maxPreambleBytes: most bytes allowed before the first boundary.
    /// - Throws: `MultipartError.invalidBoundary` unless the boundary is 1–70 printable ASCII
    ///   characters, not ending in a space.
    public init(boundary: String, maxHeaderBytes: Int = 16 * 1024, maxPreambleBytes: Int = 16 * 1024)
        throws(MultipartError)
    {
        guard MultipartHeaders.isValidBoundary(boundary) else { throw .invalidBoundary }
        delimiter = Delimiter(boundary: boundary)
        self.maxHeaderBytes = maxHeaderBytes
        self.maxPreambleBytes = maxPreambleBytes
    }

    /// Parses the next chunk of the body and returns the events it completed, in order. After a
    /// throw the parser is spent: later calls throw the same error.
    public mutating func feed(_ chunk: ByteBuffer) throws(MultipartError) -> [MultipartEvent] {
        if case .failed(let error) = state { throw error }
        var events: [MultipartEvent] = []
        var position = chunk.readerIndex
        do throws(MultipartError) {
            while position < chunk.writerIndex {
                switch state {
                case .preamble, .body:
                    position = try scanData(chunk, from: position, into: &events)
                case .boundaryLine(let line):
                    position = try scanBoundaryLine(chunk, from: position, at: line)
                case .headers:
                    position = try scanHeaders(chunk, from: position, into: &events)
                case .epilogue, .failed:
                    return events
                }
            }
        } catch {
            state = .failed(error)
            throw error
        }
        return events
    }

    /// Says the body is complete.
    /// - Throws: `MultipartError.unexpectedEndOfBody` unless the closing boundary came.
    public mutating func finish() throws(MultipartError) {
        switch state {
        case .epilogue:
            return
        case .failed(let error):
            throw error
        default:
            state = .failed(.unexpectedEndOfBody)
            throw .unexpectedEndOfBody
        }
    }

    // MARK: - Preamble and part bodies

    /// Hands out (or, in the preamble, skips) data up to the next delimiter; returns where it stopped.
    private mutating func scanData(_ chunk: ByteBuffer, from start: Int, into events: inout [MultipartEvent])
        throws(MultipartError) -> Int
    {
        let end = chunk.writerIndex
        var position = start
        if heldBack > 0 {
            let wanted = min(delimiter.count - heldBack, end - position)
            let continues = chunk.withUnsafeReadableBytes { readable in
                let offset = position - chunk.readerIndex
                return delimiter.continues(at: heldBack, with: UnsafeRawBufferPointer(rebasing: readable[offset..<offset + wanted]))
            }
            if continues {
                heldBack += wanted
                position += wanted
                if heldBack == delimiter.count {
                    heldBack = 0
                    delimiterFound(into: &events)
                }
                return position
            }
            // Not a delimiter after all: the held-back bytes were data. They are a delimiter
            // prefix, hence hold no second CR, so no delimiter can start inside them.
            let data = ByteBuffer(bytes: delimiter.bytes[..<heldBack])
            heldBack = 0
            try handOut(data, into: &events)
        }

        let match = chunk.withUnsafeReadableBytes { readable in
            delimiter.firstMatch(in: readable, from: position - chunk.readerIndex)
        }
        switch match {
        case .none:
            try handOut(chunk.getSlice(at: position, length: end - position)!, into: &events)
            return end
        case .partial(let offset):
            let delimiterStart = chunk.readerIndex + offset
            try handOut(chunk.getSlice(at: position, length: delimiterStart - position)!, into: &events)
            heldBack = end - delimiterStart
            return end
        case .complete(let offset):
            let delimiterStart = chunk.readerIndex + offset
            try handOut(chunk.getSlice(at: position, length: delimiterStart - position)!, into: &events)
            delimiterFound(into: &events)
            return delimiterStart + delimiter.count
        }
    }

    private mutating func handOut(_ data: ByteBuffer, into events: inout [MultipartEvent]) throws(MultipartError) {
        guard data.readableBytes > 0 else { return }
        if case .body = state {
            events.append(.body(data))
        } else {
            preambleBytes += data.readableBytes
            guard preambleBytes <= maxPreambleBytes else { throw .preambleTooLarge(limit: maxPreambleBytes) }
        }
    }

    private mutating func delimiterFound(into events: inout [MultipartEvent]) {
        if partIsOpen {
            events.append(.partEnd)
            partIsOpen = false
        }
        headerBytes = 0
        state = .boundaryLine(.start)
    }

    // MARK: - Boundary lines and part headers

    /// Reads the rest of a boundary line: `--` (closing), or transport padding and CRLF.
    private mutating func scanBoundaryLine(_ chunk: ByteBuffer, from start: Int, at line: BoundaryLine)
        throws(MultipartError) -> Int
    {
        var line = line
        var position = start
        while position < chunk.writerIndex {
            let byte = chunk.getInteger(at: position, as: UInt8.self)!
            position += 1
            headerBytes += 1
            guard headerBytes <= maxHeaderBytes else { throw .headerBlockTooLarge(limit: maxHeaderBytes) }
            switch (line, byte) {
            case (.start, .hyphen):
                line = .firstHyphen
            case (.firstHyphen, .hyphen):
                // RFC 2046: whatever follows the closing boundary is epilogue, to be ignored.
                state = .epilogue
                return chunk.writerIndex
            case (.start, .space), (.start, .tab), (.padding, .space), (.padding, .tab):
                line = .padding
            case (.start, .carriageReturn), (.padding, .carriageReturn):
                line = .carriageReturn
            case (.carriageReturn, .lineFeed):
                headerBlock.reset()
                state = .headers
                return position
            default:
                throw .missingCRLFAfterBoundary
            }
        }
        state = .boundaryLine(line)
        return position
    }

    /// Collects header lines until the empty line, then hands the part's headers out.
    private mutating func scanHeaders(_ chunk: ByteBuffer, from start: Int, into events: inout [MultipartEvent])
        throws(MultipartError) -> Int
    {
        var position = start
        while position < chunk.writerIndex {
            let room = maxHeaderBytes - headerBytes
            // Take bytes up to and including the next LF, but never more than the limit allows.
            let (taken, endsLine) = chunk.withUnsafeReadableBytes { readable in
                let offset = position - chunk.readerIndex
                let window = UnsafeRawBufferPointer(rebasing: readable[offset..<min(readable.count, offset + room + 1)])
                let length = window.firstIndex(of: .lineFeed).map { $0 + 1 } ?? window.count
                headerBlock.append(UnsafeRawBufferPointer(rebasing: window[..<length]))
                return (length, window[length - 1] == .lineFeed)
            }
            position += taken
            headerBytes += taken
            guard headerBytes <= maxHeaderBytes else { throw .headerBlockTooLarge(limit: maxHeaderBytes) }
            if endsLine, let headers = try headerBlock.lineEnded() {
                events.append(.partHeaders(headers))
                partIsOpen = true
                state = .body
                return position
            }
        }
        return position
    }
}
