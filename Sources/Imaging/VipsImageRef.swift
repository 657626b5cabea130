import CVips
import NIOCore

/// Owns one reference to a libvips image. Operations are methods so the image stays alive for the C call.
/// Lives only inside one call of `ImageProcessor`: never stored or shared between threads.
final class VipsImageRef {
    private let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        cvips_unref(pointer)
    }

    /// Wraps a libvips call that produces a new image through an out-parameter.
    static func make(_ call: (UnsafeMutablePointer<OpaquePointer?>) -> Int32) -> VipsImageRef? {
        var out: OpaquePointer?
        guard call(&out) == 0, let out else { return nil }
        return VipsImageRef(taking: out)
    }

    var width: Int { Int(cvips_width(pointer)) }
    var height: Int { Int(cvips_height(pointer)) }
    /// 8 bits per band, sRGB interpretation (with or without alpha).
    var isSRGB8: Bool { cvips_is_srgb8(pointer) != 0 }
    var isCMYK: Bool { cvips_is_cmyk(pointer) != 0 }

    func hasField(_ name: String) -> Bool { cvips_has_field(pointer, name) != 0 }
    func intField(_ name: String, default fallback: Int) -> Int {
        Int(cvips_int_field(pointer, name, Int32(clamping: fallback)))
    }

    /// A string metadata field (at most 255 bytes), or nil when the image does not have it.
    func stringField(_ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard cvips_string_field(pointer, name, &buffer, buffer.count) != 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Every pixel's bands, row after row; nil when the pixels cannot be computed. For checks.
    func pixels() -> [UInt8]? {
        var length = 0
        guard let data = cvips_pixels(pointer, &length) else { return nil }
        defer { cvips_free(data) }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }

    func copiedToMemory() -> VipsImageRef? {
        cvips_copy_memory(pointer).map(VipsImageRef.init(taking:))
    }

    static func jpegShrunkOnLoad(_ input: UnsafeRawBufferPointer, by shrink: Int) -> VipsImageRef? {
        guard let base = input.baseAddress else { return nil }
        return make { cvips_load_jpeg_shrunk(base, input.count, Int32(shrink), CVIPS_FAIL_ON_ERROR, $0) }
    }

    /// A progressive 4:4:4 JPEG decoded on two threads, in memory; nil for any other file or anything wrong in
    /// it (then `jpegShrunkOnLoad` decodes it, or says what is wrong).
    static func progressiveJPEGOnTwoThreads(_ input: UnsafeRawBufferPointer, shrunkBy shrink: Int) -> VipsImageRef? {
        guard let base = input.baseAddress else { return nil }
        return make { cvips_load_progressive_jpeg_split(base, input.count, Int32(shrink), $0) }
    }

    static func thumbnail(
        _ input: UnsafeRawBufferPointer, within longEdge: Int, convertingICCToSRGB: Bool
    ) -> VipsImageRef? {
        guard let base = input.baseAddress else { return nil }
        let edge = Int32(longEdge)
        return make { out in
            cvips_thumbnail_buffer(
                base, input.count, edge, edge, CVIPS_FAIL_ON_ERROR, convertingICCToSRGB ? "srgb" : nil, out)
        }
    }

    func fitted(within longEdge: Int) -> VipsImageRef? {
        VipsImageRef.make { cvips_thumbnail_image(pointer, Int32(longEdge), Int32(longEdge), $0) }
    }

    func iccConvertedToSRGB() -> VipsImageRef? { VipsImageRef.make { cvips_icc_to_srgb(pointer, $0) } }
    func convertedToSRGB8() -> VipsImageRef? { VipsImageRef.make { cvips_to_srgb8(pointer, $0) } }
    func flattenedOnWhite() -> VipsImageRef? { VipsImageRef.make { cvips_flatten_on_white(pointer, $0) } }
    func withoutMetadata() -> VipsImageRef? { VipsImageRef.make { cvips_without_metadata(pointer, $0) } }

    /// Encodes with every metadata block removed; the libvips buffer is copied into a ByteBuffer and freed.
    func encoded(as format: RenditionFormat) -> ByteBuffer? {
        var data: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32 = switch format {
        case .webp(let quality): cvips_save_webp(pointer, Int32(quality), Libvips.webpEffort, &data, &length)
        case .progressiveJPEG(let quality): cvips_save_jpeg(pointer, Int32(quality), 1, &data, &length)
        }
        defer { cvips_free(data) }
        guard status == 0, let data else { return nil }
        let encoded = UnsafeRawBufferPointer(start: data, count: length)
        switch format {
        case .webp:
            return WebPMetadata.stripped(encoded)
        case .progressiveJPEG:
            // jpegsave honours `strip`: nothing but the image is written.
            var buffer = ByteBufferAllocator().buffer(capacity: length)
            buffer.writeBytes(encoded)
            return buffer
        }
    }
}
