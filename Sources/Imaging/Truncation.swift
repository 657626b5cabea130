/// Tells a file that was cut short from one that is damaged, by the end marker its format must have.
/// Only asked after libvips failed to read the file, so a wrong guess only changes which error is reported.
enum Truncation {
    static func looksCutShort(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let data = Array(bytes.prefix(12))
        if data.starts(with: [0xFF, 0xD8]) {
            // JPEG ends with EOI (FF D9); some writers pad with zero bytes after it.
            let tail = bytes.reversed().drop { $0 == 0 }
            return !tail.starts(with: [0xD9, 0xFF])
        }
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            // PNG ends with an empty IEND chunk and its CRC.
            return !bytes.suffix(12).elementsEqual([0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
        }
        if data.starts(with: Array("GIF8".utf8)) {
            // GIF ends with the trailer byte ';'.
            return bytes.last != 0x3B
        }
        if data.starts(with: Array("RIFF".utf8)), data.count == 12, data[8..<12].elementsEqual("WEBP".utf8) {
            // The RIFF header states the file's length.
            let stated = Int(data[4]) | Int(data[5]) << 8 | Int(data[6]) << 16 | Int(data[7]) << 24
            return bytes.count < stated + 8
        }
        if data.count == 12, data[4..<8].elementsEqual("ftyp".utf8) {
            // HEIF: a box declaring more bytes than remain.
            return heifBoxesOverrun(bytes)
        }
        return false
    }

    private static func heifBoxesOverrun(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset + 8 <= bytes.count {
            var size = 0
            for index in 0..<4 { size = size << 8 | Int(bytes[offset + index]) }
            if size == 1, offset + 16 <= bytes.count {
                size = 0
                for index in 8..<16 { size = size << 8 | Int(bytes[offset + index]) }
            } else if size == 0 {
                return false  // "to the end of the file"
            }
            guard size >= 8 else { return false }
            guard size <= bytes.count - offset else { return true }
            offset += size
        }
        return false
    }
}
