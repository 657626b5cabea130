import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Blocking reads and writes of whole frames on one end of a pipe, for the image worker and the
/// server's side of it (which calls them from a thread pool, never an event loop). With a deadline
/// (the server's ends, which are non-blocking), each waits in `poll` and gives up when it passes;
/// without one (the worker's ends, blocking) the system call waits.
public struct ImageWorkPipe: Sendable {
    public let descriptor: Int32

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    public enum Failure: Error, Equatable, Sendable {
        /// The other end closed its side (the worker exited, or the server went away).
        case closed
        case timedOut
        case failed(errno: Int32)
    }

    /// Exactly `count` bytes, or nil when the other end closed before the first byte
    /// (a clean end between frames). Closing part-way through is `.closed`.
    public func read(exactly count: Int, until deadline: ContinuousClock.Instant? = nil) throws(Failure) -> ByteBuffer? {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        while buffer.readableBytes < count {
            try wait(for: Int16(POLLIN), until: deadline)
            let wanted = min(count - buffer.readableBytes, 1 << 20)
            let result = buffer.appendRead(from: descriptor, count: wanted)
            if result > 0 { continue }
            if result == 0 {
                if buffer.readableBytes == 0 { return nil }
                throw .closed
            }
            if errno == EINTR || errno == EAGAIN { continue }
            throw .failed(errno: errno)
        }
        return buffer
    }

    /// Writes every byte of `bytes`.
    public func write(_ bytes: ByteBuffer, until deadline: ContinuousClock.Instant? = nil) throws(Failure) {
        var remaining = bytes
        while remaining.readableBytes > 0 {
            try wait(for: Int16(POLLOUT), until: deadline)
            let written = remaining.withUnsafeReadableBytes { unwritten in
                Glibc.write(descriptor, unwritten.baseAddress, unwritten.count)
            }
            if written >= 0 {
                remaining.moveReaderIndex(forwardBy: written)
                continue
            }
            if errno == EINTR || errno == EAGAIN { continue }
            throw errno == EPIPE ? .closed : .failed(errno: errno)
        }
    }

    /// Waits until the descriptor is ready for `events`, or the deadline passes; no wait without one.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant?) throws(Failure) {
        guard let deadline else { return }
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw .timedOut }
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            var watched = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&watched, 1, milliseconds)
            if ready > 0 { return }  // readable, writable, or hung up: the read or write tells which
            if ready == 0 { throw .timedOut }
            if errno != EINTR { throw .failed(errno: errno) }
        }
    }
}
