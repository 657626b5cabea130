import NIOCore

/// Removes the EXIF, XMP and ICC chunks from a WebP file.
///
/// libvips 8.14's webpsave ignores `strip` (it reads a field of its own that no argument sets) and always
/// writes an EXIF chunk, with the image's EXIF if it has any. So the saver's output is cleaned here.
enum WebPMetadata {
    private static let metadataChunks: Set<String> = ["EXIF", "XMP ", "ICCP"]
    /// VP8X flag bits: ICC profile, EXIF, XMP.
    private static let metadataFlags: UInt8 = 0x20 | 0x08 | 0x04

    /// The file without metadata chunks, or nil if it is not a well-formed RIFF/WEBP file.
    static func stripped(_ webp: UnsafeRawBufferPointer) -> ByteBuffer? {
        guard webp.count >= 12, fourCC(webp, at: 0) == "RIFF", fourCC(webp, at: 8) == "WEBP" else { return nil }
        var output = ByteBufferAllocator().buffer(capacity: webp.count)
        output.writeBytes(webp[0..<12])
        var offset = 12
        while offset < webp.count {
            guard offset + 8 <= webp.count else { return nil }
            let kind = fourCC(webp, at: offset)
            let size = Int(littleEndian32(webp, at: offset + 4))
            let end = offset + 8 + size + (size & 1)  // payloads are padded to an even length
            guard end <= webp.count || (end == webp.count + 1 && size & 1 == 1) else { return nil }
            let chunk = webp[offset..<min(end, webp.count)]
            if kind == "VP8X", size >= 1 {
                let flagsAt = output.writerIndex + 8
                output.writeBytes(chunk)
                let flags = output.getInteger(at: flagsAt, as: UInt8.self) ?? 0
                output.setInteger(flags & ~metadataFlags, at: flagsAt)
            } else if !metadataChunks.contains(kind) {
                output.writeBytes(chunk)
            }
            offset = end
        }
        // The RIFF size counts everything after its own 8 bytes.
        output.setInteger(UInt32(output.readableBytes - 8), at: 4, endianness: .little)
        return output
    }

    private static func fourCC(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> String {
        String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }

    private static func littleEndian32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { value, index in value | UInt32(bytes[offset + index]) << (8 * index) }
    }
}
