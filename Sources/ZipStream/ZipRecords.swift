import NIOCore

/// Byte layouts from PKWARE's APPNOTE.TXT (6.3.x), all integers little-endian.
enum ZipRecords {
    static let localHeaderSignature: UInt32 = 0x0403_4B50
    static let dataDescriptorSignature: UInt32 = 0x0807_4B50
    static let centralHeaderSignature: UInt32 = 0x0201_4B50
    static let zip64EndSignature: UInt32 = 0x0606_4B50
    static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    static let endSignature: UInt32 = 0x0605_4B50

    /// Bit 3: CRC and sizes follow the data in a data descriptor. Bit 11: names are UTF-8.
    static let flags: UInt16 = 0x0808
    /// Upper byte 3 = Unix (so external attributes are Unix modes), lower byte = spec 4.5.
    static let versionMadeBy: UInt16 = 0x032D
    static let versionNeededClassic: UInt16 = 20
    static let versionNeededZip64: UInt16 = 45
    /// Regular file, rw-r--r--, in the upper 16 bits as Unix extractors expect.
    static let externalAttributes: UInt32 = 0o100644 << 16
    /// A 32-bit field holding this value means "see the ZIP64 extra field".
    static let overflow32: UInt64 = 0xFFFF_FFFF
    static let overflow16 = 0xFFFF

    /// A finished entry as the central directory needs it (a few dozen bytes plus the name).
    struct CentralEntry: Sendable {
        let name: String
        let timestamp: DOSTimestamp
        let crc: UInt32
        let size: UInt64
        let localHeaderOffset: UInt64
        let zip64LocalHeader: Bool
    }

    static func writeLocalHeader(
        into buffer: inout ByteBuffer, name: String, timestamp: DOSTimestamp, zip64: Bool
    ) {
        buffer.writeLE(localHeaderSignature)
        buffer.writeLE(zip64 ? versionNeededZip64 : versionNeededClassic)
        buffer.writeLE(flags)
        buffer.writeLE(UInt16(0))  // stored
        buffer.writeLE(timestamp.time)
        buffer.writeLE(timestamp.date)
        buffer.writeLE(UInt32(0))  // CRC: in the data descriptor
        // Sizes are in the data descriptor; with ZIP64 the 32-bit fields point at the extra field.
        let sizeField: UInt32 = zip64 ? UInt32(overflow32) : 0
        buffer.writeLE(sizeField)
        buffer.writeLE(sizeField)
        let nameLength = buffer.writerIndex
        buffer.writeLE(UInt16(0))  // patched below
        let extraLength = buffer.writerIndex
        buffer.writeLE(UInt16(0))
        let nameBytes = buffer.writeString(name)
        buffer.setInteger(UInt16(nameBytes), at: nameLength, endianness: .little)
        let extraStart = buffer.writerIndex
        if zip64 {
            // Announces 8-byte sizes in the data descriptor; both values are unknown yet (0).
            buffer.writeLE(UInt16(0x0001))
            buffer.writeLE(UInt16(16))
            buffer.writeLE(UInt64(0))
            buffer.writeLE(UInt64(0))
        }
        writeUnixTime(into: &buffer, timestamp)
        buffer.setInteger(UInt16(buffer.writerIndex - extraStart), at: extraLength, endianness: .little)
    }

    static func writeDataDescriptor(into buffer: inout ByteBuffer, crc: UInt32, size: UInt64, zip64: Bool) {
        buffer.writeLE(dataDescriptorSignature)
        buffer.writeLE(crc)
        if zip64 {
            buffer.writeLE(size)  // compressed = uncompressed: stored
            buffer.writeLE(size)
        } else {
            buffer.writeLE(UInt32(size))
            buffer.writeLE(UInt32(size))
        }
    }

    static func writeCentralHeader(into buffer: inout ByteBuffer, _ entry: CentralEntry) {
        let sizeOverflows = entry.size >= overflow32
        let offsetOverflows = entry.localHeaderOffset >= overflow32
        let needsZip64 = sizeOverflows || offsetOverflows || entry.zip64LocalHeader

        buffer.writeLE(centralHeaderSignature)
        buffer.writeLE(versionMadeBy)
        buffer.writeLE(needsZip64 ? versionNeededZip64 : versionNeededClassic)
        buffer.writeLE(flags)
        buffer.writeLE(UInt16(0))
        buffer.writeLE(entry.timestamp.time)
        buffer.writeLE(entry.timestamp.date)
        buffer.writeLE(entry.crc)
        let sizeField = UInt32(min(entry.size, overflow32))
        buffer.writeLE(sizeField)
        buffer.writeLE(sizeField)
        let nameLength = buffer.writerIndex
        buffer.writeLE(UInt16(0))
        let extraLength = buffer.writerIndex
        buffer.writeLE(UInt16(0))
        buffer.writeLE(UInt16(0))  // comment length
        buffer.writeLE(UInt16(0))  // disk number start
        buffer.writeLE(UInt16(0))  // internal attributes
        buffer.writeLE(externalAttributes)
        buffer.writeLE(UInt32(min(entry.localHeaderOffset, overflow32)))
        let nameBytes = buffer.writeString(entry.name)
        buffer.setInteger(UInt16(nameBytes), at: nameLength, endianness: .little)
        let extraStart = buffer.writerIndex
        if sizeOverflows || offsetOverflows {
            // Only the fields whose 32-bit slot says 0xFFFFFFFF, in the fixed order of APPNOTE 4.5.3.
            buffer.writeLE(UInt16(0x0001))
            buffer.writeLE(UInt16((sizeOverflows ? 16 : 0) + (offsetOverflows ? 8 : 0)))
            if sizeOverflows {
                buffer.writeLE(entry.size)
                buffer.writeLE(entry.size)
            }
            if offsetOverflows { buffer.writeLE(entry.localHeaderOffset) }
        }
        writeUnixTime(into: &buffer, entry.timestamp)
        buffer.setInteger(UInt16(buffer.writerIndex - extraStart), at: extraLength, endianness: .little)
    }

    /// ZIP64 end record and locator (when any count, size or offset overflows), then the classic end record.
    static func writeEnd(into buffer: inout ByteBuffer, entryCount: Int, directorySize: UInt64, directoryOffset: UInt64) {
        let countOverflows = entryCount >= overflow16
        let sizeOverflows = directorySize >= overflow32
        let offsetOverflows = directoryOffset >= overflow32
        if countOverflows || sizeOverflows || offsetOverflows {
            let zip64EndOffset = directoryOffset + directorySize
            buffer.writeLE(zip64EndSignature)
            buffer.writeLE(UInt64(44))  // size of the rest of this record
            buffer.writeLE(versionMadeBy)
            buffer.writeLE(versionNeededZip64)
            buffer.writeLE(UInt32(0))  // this disk
            buffer.writeLE(UInt32(0))  // disk with the central directory
            buffer.writeLE(UInt64(entryCount))
            buffer.writeLE(UInt64(entryCount))
            buffer.writeLE(directorySize)
            buffer.writeLE(directoryOffset)

            buffer.writeLE(zip64LocatorSignature)
            buffer.writeLE(UInt32(0))
            buffer.writeLE(zip64EndOffset)
            buffer.writeLE(UInt32(1))  // total disks
        }
        let count = UInt16(min(entryCount, overflow16))
        buffer.writeLE(endSignature)
        buffer.writeLE(UInt16(0))
        buffer.writeLE(UInt16(0))
        buffer.writeLE(count)
        buffer.writeLE(count)
        buffer.writeLE(UInt32(min(directorySize, overflow32)))
        buffer.writeLE(UInt32(min(directoryOffset, overflow32)))
        buffer.writeLE(UInt16(0))  // comment length
    }

    /// "UT" extended timestamp (0x5455) with the modification time only.
    private static func writeUnixTime(into buffer: inout ByteBuffer, _ timestamp: DOSTimestamp) {
        guard let unixTime = timestamp.unixTime else { return }
        buffer.writeLE(UInt16(0x5455))
        buffer.writeLE(UInt16(5))
        buffer.writeInteger(UInt8(1))  // flags: mtime present
        buffer.writeLE(unixTime)
    }
}

extension ByteBuffer {
    fileprivate mutating func writeLE<Value: FixedWidthInteger>(_ value: Value) {
        writeInteger(value, endianness: .little)
    }
}
