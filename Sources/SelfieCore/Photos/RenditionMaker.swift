import Crypto
import Foundation
import ImagingTypes
import Logging
import NIOCore

/// Makes a photo's renditions from its original in the blob store: streams it to an image worker
/// (a process of its own, see `ImageWorkers`), which runs the pipeline (decode once → upright → sRGB
/// → every metadata block stripped → encode), and stores each rendition as a blob of its own.
///
/// Decoding is CPU-bound and memory-hungry (≈ 25 MB for a 12 MP JPEG, decoded at a reduced scale;
/// ≈ 140 MB for a 12 MP HEIC, which libheif decodes whole; ≈ 445 MB for a 64 MP interlaced 16-bit
/// PNG from a 400 KB file, up to ≈ 1 GB at 100 MP, against ≈ 100 MB for the same PNG not interlaced,
/// which is decoded row by row; ≈ 490 MB for a 100 MP GIF), so at most one photo per core is
/// processed at once — and a HEIC, an interlaced PNG or a GIF alone: a burst of uploads waits
/// instead of exhausting memory (cores × `IMAGE_WORKER_MEMORY_MB`).
/// That memory is the worker's; the server holds neither the original nor its pixels.
public struct RenditionMaker: Sendable {
    let workers: ImageWorkers
    let blobs: any BlobStore
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }

    public init(blobs: any BlobStore, maxPixels: Int, workers settings: ImageWorkerSettings = ImageWorkerSettings(), logger: Logger) {
        self.workers = ImageWorkers(settings: settings, maxPixels: maxPixels, logger: logger)
        self.blobs = blobs
        self.scopedLogger = ScopedLogger(logger)
    }

    /// One photo per core at once; a format decoded whole takes every turn.
    private static let turns = AsyncSemaphore(permits: System.coreCount)

    /// Formats whose decoders cannot shrink on load, so a small file may take the whole picture's
    /// memory at full depth: libheif's HEIC, a GIF's frames.
    static let decodedWhole: Set<String> = ["image/heic", "image/gif"]

    /// How many turns decoding the original takes: every one for a format decoded whole, and for a
    /// PNG unless its header says it is not interlaced (Adam7 needs every row before the first is
    /// whole; a plain PNG streams). A PNG whose header cannot be read counts as interlaced.
    static func weight(of original: BlobKey, in blobs: any BlobStore) async -> Int {
        switch original.contentType {
        case _ where decodedWhole.contains(original.contentType): return turns.permits
        case "image/png":
            // Signature (8), IHDR's length and type (8), width, height (8), depth, colour type,
            // compression, filter, interlace method.
            let interlaceAt = 28
            var bytes = ByteBuffer()
            guard let head = try? await blobs.read(original, range: .from(0, through: interlaceAt)),
                (try? await head.body.write({ chunk in bytes.writeImmutableBuffer(chunk) })) != nil,
                bytes.readableBytes == interlaceAt + 1,
                bytes.getString(at: 12, length: 4) == "IHDR",
                bytes.getInteger(at: interlaceAt, as: UInt8.self) == 0
            else { return turns.permits }
            return 1
        default: return 1
        }
    }

    /// What the pipeline made: the original's upright size and the stored renditions.
    public struct Made: Sendable {
        public let width: Int
        public let height: Int
        /// When the photo was taken, if its metadata said (read before it was stripped).
        public let takenAt: Date?
        /// See `Photo.takenAtIsLocalTime`.
        public let takenAtIsLocalTime: Bool
        public let renditions: [PhotoRendition]
    }

    /// Makes and stores every rendition of the original under `original`, a photo of `owner`'s
    /// (a worker only ever sees one account's photos). A photo the pipeline refuses is
    /// `PhotoError.unprocessable`; on any failure no rendition is left in the store.
    public func make(from original: BlobKey, byteSize: Int64, owner: Int64) async throws -> Made {
        try await Self.turns.withPermits(await Self.weight(of: original, in: blobs)) {
            let processed: ProcessedImage
            switch try await ask(.renditions, about: original, byteSize: byteSize, owner: owner) {
            case .processed(let image): processed = image
            case .refused(let error): throw Self.photoError(error)
            case .probed: throw ImageWorkerFailure.unavailable("a probe for a renditions request")
            }
            return Made(
                width: processed.probe.width,
                height: processed.probe.height,
                takenAt: processed.probe.takenAt,
                takenAtIsLocalTime: processed.probe.takenAtIsLocalTime,
                renditions: try await store(processed.renditions)
            )
        }
    }

    /// When the photo under `original` was taken, from its header alone (nothing is decoded), and
    /// whether that is a local time (`Photo.takenAtIsLocalTime`).
    public func captureTime(of original: BlobKey, byteSize: Int64, owner: Int64) async throws -> (date: Date, isLocalTime: Bool)? {
        try await Self.turns.withPermits(1) {
            let probe: ImageProbe
            switch try await ask(.probe, about: original, byteSize: byteSize, owner: owner) {
            case .probed(let probed): probe = probed
            case .processed(let image): probe = image.probe
            case .refused: return nil
            }
            return probe.takenAt.map { ($0, probe.takenAtIsLocalTime) }
        }
    }

    /// Streams the original from the store to a worker and returns its reply. A worker that crashed
    /// on the photo refuses it as unreadable; one that could not answer is `.processingUnavailable`.
    private func ask(_ request: ImageWorkRequest, about original: BlobKey, byteSize: Int64, owner: Int64) async throws -> ImageWorkReply {
        guard let content = try await blobs.read(original, range: nil) else { throw PhotoError.notFound }
        do {
            return try await workers.run(request, body: content.body, byteCount: content.totalSize, owner: owner)
        } catch ImageWorkerFailure.crashedOnImage {
            throw PhotoError.unprocessable(.unreadable)
        } catch ImageWorkerFailure.unavailable {
            throw PhotoError.processingUnavailable
        }
    }

    /// A refusal as the surfaces word it; a failure of the pipeline itself stays an `ImageError` (a 500).
    private static func photoError(_ error: ImageError) -> any Error {
        guard let problem = ImageProblem(error) else { return error }
        return PhotoError.unprocessable(problem)
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
