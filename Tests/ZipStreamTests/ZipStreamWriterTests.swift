import Foundation
import NIOCore
import Testing
import ZipStream

@Suite("ZIP archives checked with Python zipfile and unzip -t")
struct ZipStreamWriterTests {
    /// 2024-02-29 13:45:58 UTC, a leap day with an even second (DOS time has 2-second steps).
    private let leapDay = Date(timeIntervalSince1970: 1_709_214_358)

    private func chunks(_ bytes: [UInt8], size: Int) -> AsyncStream<ByteBuffer> {
        AsyncStream { continuation in
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + size)
                continuation.yield(ByteBuffer(bytes: bytes[offset..<end]))
                offset = end
            }
            continuation.finish()
        }
    }

    @Test("several entries: text, empty, UTF-8 name, 1 MB binary in odd chunks, sanitised paths")
    func smallArchive() async throws {
        let archive = try TemporaryArchive()
        defer { archive.remove() }
        var writer = ZipStreamWriter { try archive.append($0) }

        let text = Array("Hello from Selfie!\n".utf8)
        let photo = sampleBytes(count: 1_000_003, seed: 7)
        try await writer.addEntry(name: "readme.txt", modified: leapDay, contents: chunks(text, size: 5))
        try await writer.addEntry(name: "empty.json", modified: leapDay, size: 0, contents: chunks([], size: 1))
        try await writer.addEntry(name: "Fotos/Zoë 🏔️ 写真.jpg", modified: leapDay, size: UInt64(photo.count),
                                  contents: chunks(photo, size: 65_521))
        try await writer.beginEntry(name: "../../etc/passwd", modified: leapDay)
        try await writer.write(ByteBuffer(string: "not really"))
        try await writer.endEntry()
        try await writer.beginEntry(name: "\\windows\\.\\system.ini", modified: leapDay)
        try await writer.endEntry()
        try await writer.beginEntry(name: "/abs//tab\there.txt", modified: leapDay)
        try await writer.endEntry()
        try await writer.finish()
        try archive.close()
        #expect(writer.bytesWritten == archive.size)

        let report = try await ZipInspector.python(archive.url)
        #expect(report.firstBadEntry == nil)
        #expect(!report.zip64EndRecord)
        #expect(report.entries.map(\.name) == [
            "readme.txt", "empty.json", "Fotos/Zoë 🏔️ 写真.jpg", "etc/passwd", "windows/system.ini", "abs/tab_here.txt",
        ])
        #expect(report.entries.map(\.fileSize) == [UInt64(text.count), 0, UInt64(photo.count), 10, 0, 0])
        #expect(report.entries.allSatisfy { $0.compressSize == $0.fileSize && $0.compressType == 0 })
        // Bit 3 (data descriptor) and bit 11 (UTF-8) on every entry.
        #expect(report.entries.allSatisfy { $0.flagBits & 0x0808 == 0x0808 })
        #expect(report.entries.allSatisfy { $0.dateTime == [2024, 2, 29, 13, 45, 58] })
        #expect(report.entries.allSatisfy { $0.unixTime == 1_709_214_358 && $0.mode == 0o100644 })
        #expect(report.entries[0].sha256 == (try await sha256Hex(of: text)))
        #expect(report.entries[1].sha256 == (try await sha256Hex(of: [])))
        #expect(report.entries[2].sha256 == (try await sha256Hex(of: photo)))
        #expect(report.entries[3].sha256 == (try await sha256Hex(of: Array("not really".utf8))))

        let unzip = try await ZipInspector.unzipTest(archive.url)
        #expect(unzip.contains("No errors detected in compressed data"))
        #expect(unzip.contains("testing: Fotos/Zoë 🏔️ 写真.jpg"))
    }

    @Test("more than 65 535 entries: ZIP64 end of central directory")
    func manyEntries() async throws {
        let archive = try TemporaryArchive()
        defer { archive.remove() }
        // The sans-I/O encoder directly, with one write per entry, keeps this quick.
        var encoder = ZipArchiveEncoder()
        let count = 65_540
        var pending = ByteBuffer()
        for index in 0..<count {
            var header = try encoder.beginEntry(name: "n/\(index)", modified: leapDay, size: 1)
            var data = try encoder.entryData(ByteBuffer(integer: UInt8(truncatingIfNeeded: index)))
            var descriptor = try encoder.endEntry()
            pending.writeBuffer(&header)
            pending.writeBuffer(&data)
            pending.writeBuffer(&descriptor)
            if pending.readableBytes > 1 << 20 {
                try archive.append(pending)
                pending.clear()
            }
        }
        try archive.append(pending)
        try archive.append(try encoder.finish())
        try archive.close()

        let report = try await ZipInspector.python(archive.url)
        #expect(report.firstBadEntry == nil)
        #expect(report.zip64EndRecord)
        #expect(report.entries.count == count)
        #expect(report.entries.last?.name == "n/\(count - 1)")
        #expect(report.entries.last?.fileSize == 1)
        let unzip = try await ZipInspector.unzipTest(archive.url)
        #expect(unzip.contains("No errors detected in compressed data of \(archive.url.path)"))
    }
}
