import Foundation
import Imaging
import NIOCore
import NIOPosix

/// What exiftool reads in a file: `-a -G1 -j`, keys like "GPS:GPSLatitude".
enum ExifTool {
    /// Tags a rendition may carry: where the file came from on disk, and the structure of the format.
    /// Anything else (EXIF IFDs, GPS, XMP-*, IPTC, ICC-*, MakerNotes, a comment, a warning about a
    /// malformed EXIF block, …) is metadata that should have been stripped.
    static let allowedTags: Set<String> = [
        "SourceFile",
        "ExifTool:ExifToolVersion",
        "System:FileName", "System:Directory", "System:FileSize", "System:FileModifyDate",
        "System:FileAccessDate", "System:FileInodeChangeDate", "System:FilePermissions",
        "File:FileType", "File:FileTypeExtension", "File:MIMEType", "File:ImageWidth", "File:ImageHeight",
        "File:EncodingProcess", "File:BitsPerSample", "File:ColorComponents", "File:YCbCrSubSampling",
        "JFIF:JFIFVersion", "JFIF:ResolutionUnit", "JFIF:XResolution", "JFIF:YResolution",
        "RIFF:WebP_Flags", "RIFF:ImageWidth", "RIFF:ImageHeight", "RIFF:VP8Version",
        "RIFF:HorizontalScale", "RIFF:VerticalScale",
        "RIFF:AlphaPreprocessing", "RIFF:AlphaFiltering", "RIFF:AlphaCompression",
        "Composite:ImageSize", "Composite:Megapixels",
    ]

    /// One dictionary per file, in the order given.
    static func read(_ files: [URL]) async throws -> [[String: Any]] {
        let paths = files.map(\.path)
        let json = try await OffThread.run { try Tool.run("exiftool", ["-a", "-G1", "-j"] + paths) }
        guard let records = try JSONSerialization.jsonObject(with: json) as? [[String: Any]] else {
            throw Tool.Failed(description: "exiftool printed no JSON array")
        }
        return records
    }
}

/// What Pillow decodes from a file.
struct Decoded: Decodable {
    let mode: String
    let width: Int
    let height: Int
    let frames: Int
    /// Pixel values at the requested points, one array of band values per point.
    let pixels: [[Int]]
}

enum Pillow {
    private static let script = """
        import json, sys
        from PIL import Image
        out = []
        for request in json.loads(sys.argv[1]):
            image = Image.open(request["file"])
            frames = getattr(image, "n_frames", 1)
            image.load()
            pixels = []
            for x, y in request["points"]:
                value = image.getpixel((x, y))
                pixels.append(list(value) if isinstance(value, tuple) else [value])
            out.append({"mode": image.mode, "width": image.width, "height": image.height,
                        "frames": frames, "pixels": pixels})
        print(json.dumps(out))
        """

    /// Decodes every file with Pillow and reads the pixels at `points` ((x, y) pairs) of each.
    static func decode(_ requests: [(file: URL, points: [(Int, Int)])]) async throws -> [Decoded] {
        let payload = requests.map { ["file": $0.file.path, "points": $0.points.map { [$0.0, $0.1] }] as [String: Any] }
        let argument = String(decoding: try JSONSerialization.data(withJSONObject: payload), as: UTF8.self)
        let json = try await OffThread.run { try Tool.run("python3", ["-c", script, argument]) }
        return try JSONDecoder().decode([Decoded].self, from: json)
    }

    static func decode(_ file: URL, at points: [(Int, Int)] = []) async throws -> Decoded {
        try await decode([(file, points)])[0]
    }
}

/// Runs blocking work — libvips, a child process — off Swift's cooperative threads, of which there
/// are only as many as cores: blocking one stalls every other test's server and client.
enum OffThread {
    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        return pool
    }()

    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(body)
    }
}

extension ImageProcessor {
    /// `process`, off the cooperative threads.
    func processed(_ bytes: ByteBuffer) async throws -> ProcessedImage {
        let processor = self
        return try await OffThread.run { try processor.process(bytes) }
    }
}
