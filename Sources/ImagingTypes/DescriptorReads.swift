import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ByteBuffer {
    /// Reads up to `count` bytes from `descriptor` (at `offset` with `pread`, else where the
    /// descriptor stands) onto the end of the buffer, and returns what the system call returned:
    /// the bytes read, 0 at the end, or -1 with `errno` set. NIO's `writeWithUnsafeMutableBytes`
    /// takes its closure's result as a byte count and traps on a negative one, so a system call's
    /// -1 handed straight to it (a disk's EIO, an EINTR) would end the whole process.
    public mutating func appendRead(from descriptor: Int32, count: Int, at offset: Int64? = nil) -> Int {
        var result = 0
        var failure: Int32 = 0
        writeWithUnsafeMutableBytes(minimumWritableBytes: count) { space in
            result = offset.map { pread(descriptor, space.baseAddress, count, off_t($0)) } ?? read(descriptor, space.baseAddress, count)
            if result < 0 { failure = errno }
            return max(result, 0)
        }
        if result < 0 { errno = failure }
        return result
    }
}
