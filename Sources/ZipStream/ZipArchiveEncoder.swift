import Foundation
import NIOCore

/// Produces the bytes of a ZIP archive entry by entry, without doing any I/O itself ("sans-I/O"):
/// every call returns the bytes to send next, in order. Use it directly where the destination is
/// an `inout` writer (e.g. a Hummingbird `ResponseBodyWriter`), or through `ZipStreamWriter`.
///
/// Entries are STORED (photos are already compressed) with general-purpose bit 3 (CRC and sizes in a
/// data descriptor after the data, so nothing is buffered) and bit 11 (UTF-8 names). ZIP64 fields are
/// added whenever a size, offset or count passes its 32-bit/16-bit limit.
/// Memory: one central-directory record (~60 bytes + name) per finished entry, nothing per data byte.
///
/// No call blocks: the only real work is the CRC-32 of each chunk (≈1 GB/s in release builds),
/// so chunks of a few MB are fine on an event loop or in an async context.
public struct ZipArchiveEncoder: Sendable {
    /// Bytes of archive produced so far (the offset of the next byte).
    public private(set) var bytesWritten: UInt64 = 0
    /// Entries begun so far, including an open one.
    public var entryCount: Int { names.count }

    private let allocator: ByteBufferAllocator
    private var centralDirectory: [ZipRecords.CentralEntry] = []
    private var names: Set<String> = []
    private var openEntry: OpenEntry?
    private var finished = false

    private struct OpenEntry: Sendable {
        let name: String
        let timestamp: DOSTimestamp
        let localHeaderOffset: UInt64
        let declaredSize: UInt64?
        let zip64: Bool
        var crc = CRC32()
        var size: UInt64 = 0
    }

    public init(allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        self.allocator = allocator
    }

    /// The name an entry called `name` gets in the archive (see `beginEntry`), or nil if nothing is left.
    /// Useful for de-duplicating names before adding entries.
    public static func sanitisedName(_ name: String) -> String? {
        let sanitised = EntryName.sanitise(name)
        return sanitised.isEmpty ? nil : sanitised
    }

    /// Starts an entry and returns its local file header.
    ///
    /// - Parameters:
    ///   - name: Path inside the archive. Backslashes become "/", empty/"."/".." segments (and so any
    ///     leading "/") are removed, control characters become "_". Still pass names built from
    ///     trusted parts: sanitising prevents path escapes, not confusing or clashing names.
    ///   - modified: Stored as UTC DOS time (2 s steps, 1980–2107) and as exact Unix seconds ("UT" field).
    ///   - size: The exact byte count if known up front (e.g. from the database). Entries declared
    ///     below 4 GiB get classic 32-bit headers; unknown or larger ones get ZIP64 headers and an
    ///     8-byte data descriptor. Writing more or fewer bytes than declared throws `sizeMismatch`.
    public mutating func beginEntry(name: String, modified: Date, size: UInt64? = nil) throws(ZipStreamError) -> ByteBuffer {
        guard !finished else { throw .archiveFinished }
        guard openEntry == nil else { throw .entryAlreadyOpen }
        guard let sanitised = Self.sanitisedName(name) else { throw .invalidName(name) }
        guard sanitised.utf8.count <= ZipRecords.overflow16 else { throw .nameTooLong(sanitised) }
        guard !names.contains(sanitised) else { throw .duplicateName(sanitised) }

        let timestamp = DOSTimestamp(modified)
        let zip64 = size.map { $0 >= ZipRecords.overflow32 } ?? true
        var header = allocator.buffer(capacity: 30 + sanitised.utf8.count + 29)
        ZipRecords.writeLocalHeader(into: &header, name: sanitised, timestamp: timestamp, zip64: zip64)

        names.insert(sanitised)
        openEntry = OpenEntry(
            name: sanitised, timestamp: timestamp, localHeaderOffset: bytesWritten, declaredSize: size, zip64: zip64)
        bytesWritten += UInt64(header.readableBytes)
        return header
    }

    /// Accounts for one chunk of the open entry's content (CRC and size) and returns it unchanged,
    /// to be sent next. Empty chunks are fine.
    public mutating func entryData(_ chunk: ByteBuffer) throws(ZipStreamError) -> ByteBuffer {
        guard var entry = openEntry else { throw finished ? .archiveFinished : .noOpenEntry }
        let count = UInt64(chunk.readableBytes)
        if let declared = entry.declaredSize, entry.size + count > declared {
            throw .sizeMismatch(name: entry.name, declared: declared, actual: entry.size + count)
        }
        chunk.withUnsafeReadableBytes { entry.crc.update($0) }
        entry.size += count
        openEntry = entry
        bytesWritten += count
        return chunk
    }

    /// Ends the open entry and returns its data descriptor (CRC-32 and sizes).
    public mutating func endEntry() throws(ZipStreamError) -> ByteBuffer {
        guard let entry = openEntry else { throw finished ? .archiveFinished : .noOpenEntry }
        if let declared = entry.declaredSize, declared != entry.size {
            throw .sizeMismatch(name: entry.name, declared: declared, actual: entry.size)
        }
        var descriptor = allocator.buffer(capacity: 24)
        ZipRecords.writeDataDescriptor(into: &descriptor, crc: entry.crc.value, size: entry.size, zip64: entry.zip64)
        centralDirectory.append(.init(
            name: entry.name, timestamp: entry.timestamp, crc: entry.crc.value, size: entry.size,
            localHeaderOffset: entry.localHeaderOffset, zip64LocalHeader: entry.zip64))
        openEntry = nil
        bytesWritten += UInt64(descriptor.readableBytes)
        return descriptor
    }

    /// Returns the central directory and end records; the archive is complete once they are sent.
    public mutating func finish() throws(ZipStreamError) -> ByteBuffer {
        guard !finished else { throw .archiveFinished }
        guard openEntry == nil else { throw .entryStillOpen }
        let directoryOffset = bytesWritten
        let estimate = centralDirectory.reduce(98) { $0 + 46 + 9 + 28 + $1.name.utf8.count }
        var buffer = allocator.buffer(capacity: estimate)
        for entry in centralDirectory { ZipRecords.writeCentralHeader(into: &buffer, entry) }
        let directorySize = UInt64(buffer.readableBytes)
        ZipRecords.writeEnd(
            into: &buffer, entryCount: centralDirectory.count,
            directorySize: directorySize, directoryOffset: directoryOffset)
        finished = true
        centralDirectory = []
        bytesWritten += UInt64(buffer.readableBytes)
        return buffer
    }
}
