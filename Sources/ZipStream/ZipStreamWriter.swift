import Foundation
import NIOCore

/// Streams a ZIP archive into an async sink as entries arrive (e.g. "download my data").
/// A thin wrapper over `ZipArchiveEncoder` that sends each piece to `sink` straight away, so
/// memory stays flat however large the archive gets. Use it from one task at a time.
///
/// No call blocks beyond what `sink` does; see `ZipArchiveEncoder` for format details.
public struct ZipStreamWriter {
    private var encoder: ZipArchiveEncoder
    private let sink: (ByteBuffer) async throws -> Void

    /// Bytes handed to the sink so far.
    public var bytesWritten: UInt64 { encoder.bytesWritten }

    /// - Parameter sink: receives the archive bytes in order. If it throws, the error is passed on and
    ///   the archive is unusable (its bytes were not all delivered); start over with a new writer.
    public init(allocator: ByteBufferAllocator = ByteBufferAllocator(), sink: @escaping (ByteBuffer) async throws -> Void) {
        encoder = ZipArchiveEncoder(allocator: allocator)
        self.sink = sink
    }

    /// Starts an entry; see `ZipArchiveEncoder.beginEntry(name:modified:size:)` for naming and `size`.
    public mutating func beginEntry(name: String, modified: Date, size: UInt64? = nil) async throws {
        try await sink(encoder.beginEntry(name: name, modified: modified, size: size))
    }

    /// Appends a chunk to the open entry.
    public mutating func write(_ chunk: ByteBuffer) async throws {
        let chunk = try encoder.entryData(chunk)
        if chunk.readableBytes > 0 { try await sink(chunk) }
    }

    /// Appends every chunk of `chunks` to the open entry, one at a time as they arrive.
    public mutating func write<Chunks: AsyncSequence>(contentsOf chunks: Chunks) async throws
    where Chunks.Element == ByteBuffer {
        for try await chunk in chunks { try await write(chunk) }
    }

    /// Ends the open entry (writes its data descriptor).
    public mutating func endEntry() async throws {
        try await sink(encoder.endEntry())
    }

    /// Begins, fills and ends one entry.
    public mutating func addEntry<Chunks: AsyncSequence>(
        name: String, modified: Date, size: UInt64? = nil, contents: Chunks
    ) async throws where Chunks.Element == ByteBuffer {
        try await beginEntry(name: name, modified: modified, size: size)
        try await write(contentsOf: contents)
        try await endEntry()
    }

    /// Writes the central directory; call once after the last entry.
    public mutating func finish() async throws {
        try await sink(encoder.finish())
    }
}
