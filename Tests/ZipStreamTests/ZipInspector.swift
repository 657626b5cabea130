import ExternalTools
import Foundation

/// Checks an archive file with real tools: Python's `zipfile` and Info-ZIP `unzip -t`.
enum ZipInspector {
    struct Report: Decodable {
        /// `ZipFile.testzip()`: nil when every entry's CRC and size check out.
        let firstBadEntry: String?
        let entries: [Entry]
        let zip64EndRecord: Bool
    }

    struct Entry: Decodable, Equatable {
        let name: String
        let fileSize: UInt64
        let compressSize: UInt64
        let compressType: Int
        let crc: UInt32
        let flagBits: Int
        let headerOffset: UInt64
        /// Hex SHA-256 of the content; nil for entries over the hashing limit (testzip still reads those).
        let sha256: String?
        let dateTime: [Int]
        /// Seconds from the "UT" extra field, if present.
        let unixTime: Int?
        /// Unix mode from the upper half of the external attributes.
        let mode: Int
    }

    private static let script = """
        import hashlib, json, struct, sys, zipfile
        path, hash_limit = sys.argv[1], int(sys.argv[2])
        def unix_time(extra):
            while len(extra) >= 4:
                tag, size = struct.unpack("<HH", extra[:4])
                if tag == 0x5455 and size >= 5 and extra[4] & 1:
                    return struct.unpack("<i", extra[5:9])[0]
                extra = extra[4 + size:]
            return None
        with open(path, "rb") as raw:
            raw.seek(-(22 + 20), 2)
            zip64_end = raw.read(4) == b"PK\\x06\\x07"
        with zipfile.ZipFile(path) as archive:
            bad = archive.testzip()
            entries = []
            for info in archive.infolist():
                digest = None
                if info.file_size <= hash_limit:
                    digest = hashlib.sha256(archive.read(info)).hexdigest()
                entries.append({"name": info.filename, "fileSize": info.file_size, "compressSize": info.compress_size,
                                "compressType": info.compress_type, "crc": info.CRC, "flagBits": info.flag_bits,
                                "headerOffset": info.header_offset, "sha256": digest, "dateTime": list(info.date_time),
                                "unixTime": unix_time(info.extra), "mode": info.external_attr >> 16})
        json.dump({"firstBadEntry": bad, "entries": entries, "zip64EndRecord": zip64_end}, sys.stdout)
        """

    static func python(_ archive: URL, hashLimit: UInt64 = 64 << 20) async throws -> Report {
        let output = try await ExternalTool.run(["python3", "-c", script, archive.path, "\(hashLimit)"])
        return try JSONDecoder().decode(Report.self, from: output.stdout)
    }

    /// `unzip -t` output; it exits 0 only when every entry tests OK.
    static func unzipTest(_ archive: URL) async throws -> String {
        let output = try await ExternalTool.run(["unzip", "-t", archive.path])
        return String(decoding: output.stdout, as: UTF8.self)
    }
}
