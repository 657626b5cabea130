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
            guard let content = try await withRetries({ try await blobs.read(entry.blob, range: nil) }) else {
                logger.warning("a photo left out of an archive: its blob is missing", metadata: ["blob": "\(entry.blob.value)"])
                missing.append(entry.name)
                continue
            }
            try await sink(try archive.beginEntry(name: entry.name, modified: entry.modified, size: UInt64(content.totalSize)))
            // A read that breaks off (the store's hiccup: a reset, a SlowDown) goes on from where it
            // stopped: a download of thousands of photos is not lost to one.
            var written = 0
            var failures = 0
            var part: BlobContent? = content
            while true {
                do {
                    if part == nil { part = try await blobs.read(entry.blob, range: .from(written, through: nil)) }
                    guard let reading = part else { throw BlobStoreError.unavailable("\(entry.blob.value) went missing while it was read") }
                    try await reading.body.write { chunk in
                        written += chunk.readableBytes
                        failures = 0
                        try await sink(try archive.entryData(chunk))
                    }
                    break
                } catch let error as BlobStoreError where failures < Self.retries && written < content.totalSize {
                    failures += 1
                    logger.notice("an archive's read broke off; it goes on from where it stopped", metadata: ["blob": "\(entry.blob.value)", "at": "\(written)", "error": "\(error)"])
                    part = nil
                    try await Task.sleep(for: Self.pause)
                }
            }
            try await sink(try archive.endEntry())
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

    /// `read`, tried again after a storage failure (`retries` times at most).
    private static func withRetries<T>(_ read: () async throws -> T) async throws -> T {
        var failures = 0
        while true {
            do {
                return try await read()
            } catch is BlobStoreError where failures < retries {
                failures += 1
                try await Task.sleep(for: pause)
            }
        }
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
