import Crypto
import Foundation
import Imaging
import Logging
import NIOCore
import NIOPosix

/// Makes a photo's renditions from its original in the blob store: reads it, runs the image
/// pipeline (decode → upright → sRGB → every metadata block stripped → encode) and stores each
/// rendition as a blob of its own.
///
/// Decoding is CPU-bound and memory-hungry (≈ 25 MB for a 12 MP JPEG, decoded at a reduced scale;
/// ≈ 140 MB for a 12 MP HEIC, which libheif decodes whole), so at most one photo per core is
/// processed at once — and a HEIC alone — on threads of their own, and an original is only read
/// into memory once its turn has come: a burst of uploads waits instead of exhausting memory.
public struct RenditionMaker: Sendable {
    let processor: ImageProcessor
    let blobs: any BlobStore
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }

    public init(blobs: any BlobStore, maxPixels: Int, logger: Logger) {
        self.processor = ImageProcessor(limits: ImageLimits(maxPixels: maxPixels))
        self.blobs = blobs
        self.scopedLogger = ScopedLogger(logger)
    }

    /// One photo per core at once; a HEIC (or AVIF) takes every turn.
    private static let turns = AsyncSemaphore(permits: System.coreCount)

    /// How many turns decoding the original takes.
    static func weight(of original: BlobKey) -> Int {
        original.contentType == "image/heic" ? turns.permits : 1
    }

    /// Threads for libvips, apart from NIO's (file I/O) and bcrypt's, so that none starves another.
    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: System.coreCount)
        pool.start()
        return pool
    }()

    /// What the pipeline made: the original's upright size and the stored renditions.
    public struct Made: Sendable {
        public let width: Int
        public let height: Int
        /// When the photo was taken, if its metadata said (read before it was stripped).
        public let takenAt: Date?
        public let renditions: [PhotoRendition]
    }

    /// Makes and stores every rendition of the original under `original`. A photo the pipeline
    /// refuses is `PhotoError.unprocessable`; on any failure no rendition is left in the store.
    public func make(from original: BlobKey, byteSize: Int64) async throws -> Made {
        try await Self.turns.withPermits(Self.weight(of: original)) {
            let bytes = try await readWhole(original, byteSize: byteSize)
            let processor = self.processor
            let processed: ProcessedImage
            do {
                processed = try await Self.pool.runIfActive { try processor.process(bytes) }
            } catch let error as ImageError {
                guard let problem = ImageProblem(error) else { throw error }
                throw PhotoError.unprocessable(problem)
            }
            return Made(
                width: processed.probe.width,
                height: processed.probe.height,
                takenAt: processed.probe.takenAt,
                renditions: try await store(processed.renditions)
            )
        }
    }

    /// When the photo under `original` was taken, from its header alone (nothing is decoded).
    public func captureTime(of original: BlobKey, byteSize: Int64) async throws -> Date? {
        let bytes = try await readWhole(original, byteSize: byteSize)
        let processor = self.processor
        do {
            return try await Self.pool.runIfActive { try processor.probe(bytes).takenAt }
        } catch is ImageError {
            return nil
        }
    }

    /// The original's bytes, in memory (up to the upload limit, one photo per core).
    private func readWhole(_ key: BlobKey, byteSize: Int64) async throws -> ByteBuffer {
        guard let content = try await blobs.read(key, range: nil) else { throw PhotoError.notFound }
        var bytes = ByteBuffer()
        bytes.reserveCapacity(Int(byteSize))
        try await content.body.write { chunk in
            var chunk = chunk
            bytes.writeBuffer(&chunk)
        }
        return bytes
    }

    /// Stores each rendition under a new key; if one fails, those already stored are deleted.
    private func store(_ renditions: [Rendition]) async throws -> [PhotoRendition] {
        var stored: [PhotoRendition] = []
        do {
            for rendition in renditions {
                guard let name = RenditionName(rawValue: rendition.name), let key = BlobKey.random(contentType: rendition.mimeType) else {
                    throw RenditionNotStorable(name: rendition.name)
                }
                let writer = try await blobs.makeWriter(for: key)
                do {
                    try await writer.write(rendition.bytes)
                    try await writer.commit()
                } catch {
                    await writer.abort()
                    throw error
                }
                stored.append(
                    PhotoRendition(
                        name: name,
                        blobKey: key,
                        contentType: rendition.mimeType,
                        width: rendition.width,
                        height: rendition.height,
                        byteSize: Int64(rendition.bytes.readableBytes),
                        sha256: Array(SHA256.hash(data: rendition.bytes.readableBytesView))
                    )
                )
            }
            return stored
        } catch {
            await delete(stored.map(\.blobKey))
            throw error
        }
    }

    /// Deletes blobs that no row points to (any left over are found by `selfie check`), even for a request
    /// that has been cancelled meanwhile.
    func delete(_ keys: [BlobKey]) async {
        let (blobs, logger) = (self.blobs, self.logger)
        _ = try? await evenIfCancelled {
            for key in keys {
                do {
                    try await blobs.delete(key)
                } catch {
                    logger.warning("blob left behind; selfie check --repair moves it aside", metadata: ["blob": "\(key)", "error": "\(error)"])
                }
            }
        }
    }
}

/// The pipeline made a rendition the store has no name or file type for (a programming error).
struct RenditionNotStorable: Error {
    let name: String
}

/// Why a photo could not be turned into renditions: the person's file, not the server.
public enum ImageProblem: Error, Equatable, Sendable {
    case unsupportedFormat
    case unreadable
    case truncated
    case tooManyPixels(max: Int)
    case absurdAspectRatio

    /// nil for a failure of the pipeline itself.
    init?(_ error: ImageError) {
        switch error {
        case .empty, .unreadable: self = .unreadable
        case .unsupportedFormat: self = .unsupportedFormat
        case .truncated: self = .truncated
        case .tooManyPixels(let max): self = .tooManyPixels(max: max)
        case .absurdAspectRatio: self = .absurdAspectRatio
        case .processingFailed: return nil
        }
    }
}
