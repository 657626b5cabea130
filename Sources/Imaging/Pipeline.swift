import NIOCore
import Synchronization

/// Makes the renditions of one checked upload, decoding it once.
///
/// The largest rendition ("master") is decoded with shrink-on-load, upright, in 8-bit sRGB, without metadata,
/// and kept in memory; each smaller rendition is resized from the previous one, on a second thread while the
/// master is encoded. Identical images in the same format (a small upload that no rendition shrinks) are
/// encoded once.
struct Pipeline {
    /// How much smaller than its long edge the largest rendition may come out of a JPEG, when that lets
    /// libjpeg decode at 1/2, 1/4 or 1/8 scale and skip resampling altogether. A 12 MP JPEG (4000×3000) then
    /// gets a 2000×1500 display copy: all renditions in ~140 ms, against ~290 ms for an exact 2048×1536.
    static let jpegShrinkSlack = 0.05

    let input: UnsafeRawBufferPointer
    let header: Header
    let specs: [RenditionSpec]

    func run() throws(ImageError) -> [Rendition] {
        let largestFirst = specs.indices.sorted { specs[$0].longEdge > specs[$1].longEdge }
        let largest = largestFirst[0]
        var master = try decodedMaster(longEdge: specs[largest].longEdge)
        if max(master.width, master.height) > specs[largest].longEdge {
            guard let fitted = master.fitted(within: specs[largest].longEdge)?.copiedToMemory() else {
                throw .processingFailed(reason: Libvips.takeError())
            }
            master = fitted
        }
        // Two threads for one photo: the largest rendition is encoded (the display copy's progressive
        // JPEG, the slowest encode) while the smaller ones are resized from it and encoded. Both only
        // read the master, which libvips allows from several threads (its pixels are in memory and
        // nothing writes them), and the input bytes, which nothing writes either: hence `unsafe`.
        let results = ResultSlots(count: 2)
        nonisolated(unsafe) let (pipeline, shared) = (self, master)
        let rest = Array(largestFirst.dropFirst())
        let spec = specs[largest]
        runAlongside {
            results[1] = Result { () throws(ImageError) in try pipeline.smallerRenditions(rest, from: shared, encodedAlready: spec.format) }
        } _: {
            results[0] = Result { () throws(ImageError) in
                [largest: pipeline.rendition(spec, of: shared, bytes: try pipeline.encode(shared, as: spec.format))]
            }
        }
        var made: [Int: Rendition] = try results[0].get()
        made.merge(try results[1].get()) { first, _ in first }
        // A smaller rendition of the same pixels and format as the largest (a small upload) is its bytes.
        for index in largestFirst where made[index] == nil {
            made[index] = rendition(specs[index], of: master, bytes: made[largest]!.bytes)
        }
        return specs.indices.map { made[$0]! }
    }

    /// The renditions of `indices` (largest first), each resized from the one before, starting from
    /// `master`. Identical pixels in the same format are encoded once; those the same as the master in
    /// `encodedAlready` format are left out (the caller has those bytes).
    private func smallerRenditions(
        _ indices: [Int], from master: VipsImageRef, encodedAlready masterFormat: RenditionFormat
    ) throws(ImageError) -> [Int: Rendition] {
        var source = master
        var made: [Int: Rendition] = [:]
        var encodedOnce: [EncodingKey: ByteBuffer] = [:]
        for index in indices {
            let spec = specs[index]
            if max(source.width, source.height) > spec.longEdge {
                guard let smaller = source.fitted(within: spec.longEdge)?.copiedToMemory() else {
                    throw .processingFailed(reason: Libvips.takeError())
                }
                source = smaller
            }
            if source === master && spec.format == masterFormat { continue }
            let key = EncodingKey(image: ObjectIdentifier(source), format: spec.format)
            let bytes: ByteBuffer
            if let earlier = encodedOnce[key] {
                bytes = earlier
            } else {
                bytes = try encode(source, as: spec.format)
                encodedOnce[key] = bytes
            }
            made[index] = rendition(spec, of: source, bytes: bytes)
        }
        return made
    }

    private func rendition(_ spec: RenditionSpec, of image: VipsImageRef, bytes: ByteBuffer) -> Rendition {
        Rendition(name: spec.name, bytes: bytes, width: image.width, height: image.height, mimeType: spec.format.mimeType)
    }

    private struct EncodingKey: Hashable {
        let image: ObjectIdentifier
        let format: RenditionFormat
    }

    /// Upright, 8-bit sRGB, metadata-free pixels fitting `longEdge`, in memory.
    private func decodedMaster(longEdge: Int) throws(ImageError) -> VipsImageRef {
        // An embedded profile is converted to sRGB once the image is shrunk (fewer pixels). CMYK is left out:
        // its profile is used by the CMYK → sRGB step below, and would not fit the RGB pixels after it.
        let convertICC = header.hasICCProfile && !header.isCMYK
        let lazy: VipsImageRef?
        if let shrink = jpegShrinkKeeping(longEdge) {
            // libjpeg skips most of the work for the pixels it drops; the first rendition is then
            // resized from these (measured on 14.7 MP photos: 60–85 ms less than vips_thumbnail_buffer,
            // which decodes the same way but resamples in a slower sequential pipeline).
            // A progressive file's Huffman decoding is most of its time (~270 ms of a 14.7 MP photo's ~400):
            // a 4:4:4 one has its luma and chroma scans decoded on a core each.
            lazy = (VipsImageRef.progressiveJPEGOnTwoThreads(input, shrunkBy: shrink)
                ?? VipsImageRef.jpegShrunkOnLoad(input, by: shrink))
                .flatMap { convertICC ? $0.iccConvertedToSRGB() : $0 }
        } else {
            lazy = VipsImageRef.thumbnail(input, within: longEdge, convertingICCToSRGB: convertICC)
        }
        // Pixels are decoded here: a damaged or cut-short file fails now, not in an encoder.
        guard let decoded = lazy?.copiedToMemory() else {
            _ = Libvips.takeError()
            throw Truncation.looksCutShort(input) ? .truncated : .unreadable
        }
        // Now sRGB, B_W or CMYK, 8 or 16 bit, maybe with alpha: make it 8-bit sRGB, then drop every metadata
        // field (EXIF, XMP, IPTC, ICC, orientation, comments, page height, …).
        let srgb = decoded.isSRGB8 ? decoded : decoded.convertedToSRGB8()?.copiedToMemory()
        guard let clean = srgb?.withoutMetadata() else {
            throw .processingFailed(reason: Libvips.takeError())
        }
        return clean
    }

    /// For a JPEG, the largest libjpeg scale (8, 4, 2, else 1) that still leaves at least `longEdge`, or
    /// up to the slack below it (then that is the rendition's size and nothing is resampled).
    private func jpegShrinkKeeping(_ longEdge: Int) -> Int? {
        guard header.probe.format == .jpeg else { return nil }
        let stored = max(header.probe.width, header.probe.height)
        return [8, 4, 2].first { shrink in
            let scaled = (stored + shrink - 1) / shrink  // libjpeg rounds up
            return Double(scaled) >= Double(longEdge) * (1 - Self.jpegShrinkSlack)
        } ?? 1
    }

    private func encode(_ image: VipsImageRef, as format: RenditionFormat) throws(ImageError) -> ByteBuffer {
        let ready: VipsImageRef? = switch format {
        case .webp: image.withoutMetadata()
        case .progressiveJPEG: image.flattenedOnWhite()?.withoutMetadata()
        }
        guard let bytes = ready?.encoded(as: format) else {
            throw .processingFailed(reason: Libvips.takeError())
        }
        return bytes
    }
}

/// One result per job of `runAlongside`, each written by its own job.
private final class ResultSlots: Sendable {
    private let slots: Mutex<[Result<[Int: Rendition], ImageError>]>

    init(count: Int) {
        slots = Mutex(Array(repeating: .failure(.processingFailed(reason: "not run")), count: count))
    }

    subscript(job: Int) -> Result<[Int: Rendition], ImageError> {
        get { slots.withLock { $0[job] } }
        set { slots.withLock { $0[job] = newValue } }
    }
}
