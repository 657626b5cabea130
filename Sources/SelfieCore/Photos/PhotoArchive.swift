import Foundation
import Logging
import NIOCore
import ZipStream

/// ZIP archives of photos, written to the response while they are read from the store (nothing is
/// held whole): "Download my data", the originals of selected photos, a share link's display copies.
public enum PhotoArchive {
    /// One file of the archive: a blob under a name.
    public struct Entry: Sendable {
        let blob: BlobKey
        let name: String
        let modified: Date
    }

    /// The archive of `entries` after the in-memory `leading` files. A blob that has gone missing
    /// is left out (and logged) rather than ending the download, and its name written in a last
    /// file, `missing.txt`, one a line (an archive that looks whole but is not would be worse; what
    /// the file means is the surfaces' to say: README, the API's description).
    static func body(leading: [(name: String, bytes: ByteBuffer)] = [], entries: [Entry], blobs: any BlobStore, logger: Logger) -> BlobBody {
        BlobBody(write: { sink in try await write(leading: leading, entries: entries, blobs: blobs, logger: logger, to: sink) })
    }

    static func write(
        leading: [(name: String, bytes: ByteBuffer)],
        entries: [Entry],
        blobs: any BlobStore,
        logger: Logger,
        to sink: (ByteBuffer) async throws -> Void
    ) async throws {
        var archive = ZipArchiveEncoder()
        for (name, bytes) in leading {
            try await sink(try archive.beginEntry(name: name, modified: .now, size: UInt64(bytes.readableBytes)))
            try await sink(try archive.entryData(bytes))
            try await sink(try archive.endEntry())
        }
        var missing: [String] = []
        for entry in entries {
            let copied = try await copy(entry, from: blobs, into: &archive, logger: logger, to: sink)
            if !copied {
                logger.warning("a photo left out of an archive: its blob is missing", metadata: ["blob": "\(entry.blob.value)"])
                missing.append(entry.name)
            }
        }
        if !missing.isEmpty {
            let note = ByteBuffer(string: missing.joined(separator: "\n") + "\n")
            try await sink(try archive.beginEntry(name: "missing.txt", modified: .now, size: UInt64(note.readableBytes)))
            try await sink(try archive.entryData(note))
            try await sink(try archive.endEntry())
        }
        try await sink(try archive.finish())
    }

    /// How many times in a row a read may fail (without a byte between) before the archive ends.
    static let retries = 3
    static let pause: Duration = .milliseconds(500)

    /// Writes `entry`'s blob as one file of the archive; false, writing nothing, when it is missing.
    /// A read that fails (the store's hiccup: a reset, a SlowDown) is tried again, from where it
    /// stopped once bytes went: a download of thousands of photos is not lost to one.
    private static func copy(
        _ entry: Entry, from blobs: any BlobStore, into archive: inout ZipArchiveEncoder, logger: Logger,
        to sink: (ByteBuffer) async throws -> Void
    ) async throws -> Bool {
        var size: Int?
        var written = 0
        var failures = 0
        while true {
            do {
                if let size, written >= size { break }
                guard let content = try await blobs.read(entry.blob, range: size == nil ? nil : .from(written, through: nil)) else {
                    guard size != nil else { return false }
                    throw BlobStoreError.unavailable("\(entry.blob.value) went missing while it was read")
                }
                if size == nil {
                    size = content.totalSize
                    try await sink(try archive.beginEntry(name: entry.name, modified: entry.modified, size: UInt64(content.totalSize)))
                }
                try await content.body.write { chunk in
                    written += chunk.readableBytes
                    failures = 0
                    try await sink(try archive.entryData(chunk))
                }
                break
            } catch let error as BlobStoreError where failures < retries {
                failures += 1
                logger.notice("an archive's read failed; it is tried again", metadata: ["blob": "\(entry.blob.value)", "at": "\(written)", "error": "\(error)"])
                try await Task.sleep(for: pause)
            }
        }
        try await sink(try archive.endEntry())
        return true
    }

    /// `2026-11-22T101500Z`: sorts by time, safe in any file system.
    static func stamp(_ date: Date) -> String {
        ISO8601DateFormatter.string(from: date, timeZone: .gmt, formatOptions: [.withFullDate, .withTime, .withTimeZone])
            .replacingOccurrences(of: ":", with: "")
    }

    static func fileExtension(of key: BlobKey) -> String {
        key.value.split(separator: ".").last.map(String.init) ?? "bin"
    }
}
