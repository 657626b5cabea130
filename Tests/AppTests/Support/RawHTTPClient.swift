import Glibc
import NIOCore
import NIOPosix
import Synchronization

/// HTTP/1.1 clients written byte by byte over a plain TCP connection, for what ordinary clients
/// cannot be made to do on purpose: write a whole body before reading (as simple clients do;
/// against a server that stops reading, the writes block), trickle, hang up, pipeline, or wait
/// for a 100 (Continue).
enum RawHTTPClient {
    /// A plain TCP connection to the server on loopback, read and written as bytes.
    static func connect(port: Int) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
    }

    struct Answer {
        /// `HTTP/1.1 413 Payload Too Large`
        let statusLine: String
        let head: String
        /// Whether the server closed the connection after its answer (within the read deadline).
        let closedByServer: Bool
        /// From connecting to the answer's head having arrived.
        let elapsed: Duration

        /// 0 when no answer came (a failed expectation, not a crash of the whole suite).
        var status: Int { RawHTTPClient.status(ofHead: statusLine) }
    }

    /// Sends `head` then `bodyBytes` bytes (in 64 KiB chunks, `firstBytes` first, zeros after),
    /// then reads the answer's head and waits (up to `readFor`) for the server to close.
    static func writeEverythingThenRead(
        port: Int,
        head: String,
        firstBytes: [UInt8],
        bodyBytes: Int,
        chunked: Bool = false,
        readFor: Duration = .seconds(2)
    ) async throws -> Answer {
        let started = ContinuousClock.now
        let channel = try await connect(port: port)
        let connection = channel.channel
        return try await channel.executeThenClose { inbound, outbound in
            /// Body bytes as they go on the wire: as they are, or as one chunk of chunked encoding.
            func framed(_ bytes: ByteBuffer) -> ByteBuffer {
                guard chunked else { return bytes }
                var frame = ByteBuffer(string: String(bytes.readableBytes, radix: 16) + "\r\n")
                var bytes = bytes
                frame.writeBuffer(&bytes)
                frame.writeString("\r\n")
                return frame
            }
            try await outbound.write(ByteBuffer(string: head))
            var remaining = bodyBytes - firstBytes.count
            try await outbound.write(framed(ByteBuffer(bytes: firstBytes)))
            let zeros = ByteBuffer(repeating: 0, count: 64 * 1024)
            do {
                while remaining > 0 {
                    let count = min(remaining, zeros.readableBytes)
                    try await outbound.write(framed(zeros.getSlice(at: 0, length: count)!))
                    remaining -= count
                }
                if chunked { try await outbound.write(ByteBuffer(string: "0\r\n\r\n")) }
            } catch {
                // the server closed: read what it said
            }
            // Reads until the server closes; `readFor` after the answer's head (or 10 s without
            // one: a loaded machine may take a while to answer) the client closes it itself.
            let timedOut = Mutex(false)
            let answeredAt = Mutex<ContinuousClock.Instant?>(nil)
            let written = ContinuousClock.now
            let timer = Task {
                while true {
                    try await Task.sleep(for: .milliseconds(50))
                    let deadline = answeredAt.withLock { $0 }.map { $0 + readFor } ?? written + .seconds(10)
                    if ContinuousClock.now >= deadline { break }
                }
                timedOut.withLock { $0 = true }
                try? await connection.close()
            }
            defer { timer.cancel() }
            var received = ByteBuffer()
            var answered: ContinuousClock.Instant?
            do {
                for try await var chunk in inbound {
                    received.writeBuffer(&chunk)
                    if answered == nil, received.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)) != nil {
                        answered = .now
                        answeredAt.withLock { $0 = answered }
                    }
                }
            } catch {}
            let closed = !timedOut.withLock { $0 }
            let text = String(buffer: received)
            let head = text.components(separatedBy: "\r\n\r\n").first ?? text
            return Answer(
                statusLine: head.components(separatedBy: "\r\n").first ?? "",
                head: head,
                closedByServer: closed,
                elapsed: (answered ?? .now) - started
            )
        }
    }
}

extension RawHTTPClient {
    /// An upload to `/api/upload_photo` that declares 5 MiB and sends one byte a second after its
    /// first few; returns the status the server answers with.
    static func trickle(port: Int, token: String, started: AsyncStream<Void>.Continuation) async throws -> Int {
        let channel = try await connect(port: port)
        return try await channel.executeThenClose { inbound, outbound in
            let boundary = "trickle"
            try await outbound.write(ByteBuffer(string:
                "POST /api/upload_photo HTTP/1.1\r\nHost: localhost\r\nAuthorization: Token token=\(token)\r\n"
                + "Content-Type: multipart/form-data; boundary=\(boundary)\r\nContent-Length: \(5 * 1024 * 1024)\r\n\r\n"
                + "--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.jpg\"\r\n\r\n"))
            try await outbound.write(ByteBuffer(bytes: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00]))
            started.yield()
            started.finish()
            let sender = Task {
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(1))
                    try await outbound.write(ByteBuffer(bytes: [0]))
                }
            }
            defer { sender.cancel() }
            var received = ByteBuffer()
            for try await var chunk in inbound {
                received.writeBuffer(&chunk)
                if String(buffer: received).contains("\r\n") { break }
            }
            let line = String(buffer: received).components(separatedBy: "\r\n").first ?? ""
            return status(ofHead: line)
        }
    }
}

extension RawHTTPClient {
    /// Sends `head` and all of `body` but its last `heldBack` bytes, waits for `release`, sends the
    /// rest, and returns the answer's status and body (read by its `Content-Length`). Two of these
    /// released together make two requests that have both begun before either ends.
    static func sendHoldingBackTheEnd(
        port: Int,
        head: String,
        body: ByteBuffer,
        heldBack: Int = 16,
        release: @Sendable () async -> Void
    ) async throws -> (status: Int, body: String) {
        let channel = try await connect(port: port)
        return try await channel.executeThenClose { inbound, outbound in
            let split = body.readableBytes - heldBack
            try await outbound.write(ByteBuffer(string: head))
            try await outbound.write(body.getSlice(at: body.readerIndex, length: split)!)
            await release()
            try await outbound.write(body.getSlice(at: body.readerIndex + split, length: heldBack)!)
            var received = ByteBuffer()
            for try await var chunk in inbound {
                received.writeBuffer(&chunk)
                let text = String(buffer: received)
                guard let end = text.range(of: "\r\n\r\n") else { continue }
                let headText = text[..<end.lowerBound]
                let bodyText = String(text[end.upperBound...])
                guard bodyText.utf8.count >= contentLength(ofHead: headText) else { continue }
                return (status(ofHead: headText), bodyText)
            }
            return (0, "")
        }
    }
}

extension RawHTTPClient {
    /// Sends `head` and `body` (fewer bytes than the head declares), then sends nothing more and
    /// waits for the answer: a client whose upload stalled. The answer's status, or 0 when the
    /// connection closes without one.
    static func sendStalling(port: Int, head: String, body: [UInt8]) async throws -> Int {
        let channel = try await connect(port: port)
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: head))
            try await outbound.write(ByteBuffer(bytes: body))
            var received = ByteBuffer()
            for try await var chunk in inbound {
                received.writeBuffer(&chunk)
                let text = String(buffer: received)
                if let end = text.range(of: "\r\n\r\n") { return status(ofHead: text[..<end.lowerBound]) }
            }
            return 0
        }
    }

    /// Sends `head` and `body`, then closes the connection without reading: a network that drops.
    static func sendThenHangUp(port: Int, head: String, body: [UInt8]) async throws {
        let channel = try await connect(port: port)
        try await channel.executeThenClose { _, outbound in
            try await outbound.write(ByteBuffer(string: head))
            for start in stride(from: 0, to: body.count, by: 256 * 1024) {
                try await outbound.write(ByteBuffer(bytes: body[start..<min(start + 256 * 1024, body.count)]))
            }
        }
    }
}

extension RawHTTPClient {
    /// Writes `requests` (several, pipelined, in one write) and returns every byte the server
    /// sends until it closes the connection (the last request should ask it to), or 10 s.
    static func pipelined(port: Int, requests: String) async throws -> (received: [UInt8], closedByServer: Bool) {
        let channel = try await connect(port: port)
        let connection = channel.channel
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: requests))
            let timedOut = Mutex(false)
            let timer = Task {
                try await Task.sleep(for: .seconds(10))
                timedOut.withLock { $0 = true }
                try? await connection.close()
            }
            defer { timer.cancel() }
            var received = ByteBuffer()
            do {
                for try await var chunk in inbound { received.writeBuffer(&chunk) }
            } catch {}
            return (Array(received.readableBytesView), !timedOut.withLock { $0 })
        }
    }
}

extension RawHTTPClient {
    /// What a client that asks `Expect: 100-continue` saw: every answer's status in order, the
    /// final answer's head, and when its body went.
    struct ContinueExchange {
        enum BodySent: Equatable { case afterContinue, afterWaiting, never }
        let statuses: [Int]
        let finalHead: String
        let bodySent: BodySent
    }

    /// Sends `head`, then `body` when a 100 (Continue) arrives, or once `patience` has passed
    /// without any answer (as curl does after its one second), and reads the answers until
    /// `finals` final ones have come whole (by their `Content-Length`), or until 10 s after the
    /// patience. `pipelinedBefore` is written first, in the same write: whole requests before this one.
    static func expectingContinue(
        port: Int, pipelinedBefore: ByteBuffer = ByteBuffer(), head: String, body: ByteBuffer, patience: Duration, finals: Int = 1
    ) async throws -> ContinueExchange {
        let channel = try await connect(port: port)
        let connection = channel.channel
        return try await channel.executeThenClose { inbound, outbound in
            var first = pipelinedBefore
            first.writeString(head)
            try await outbound.write(first)
            let gate = BodyGate(outbound: outbound, body: body)
            let impatient = Task {
                try await Task.sleep(for: patience)
                try await gate.sendUnlessAnswered()
                try await Task.sleep(for: .seconds(10))
                try? await connection.close()
            }
            defer { impatient.cancel() }
            var statuses: [Int] = []
            var received = ByteBuffer()
            do {
                for try await var chunk in inbound {
                    received.writeBuffer(&chunk)
                    while let end = received.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)) {
                        let headText = received.getString(at: received.readerIndex, length: end.upperBound - received.readerIndex) ?? ""
                        let status = status(ofHead: headText)
                        if (100..<200).contains(status) {
                            statuses.append(status)
                            received.moveReaderIndex(to: end.upperBound)
                            try await gate.sendOnContinue()
                            continue
                        }
                        gate.answered()
                        let length = contentLength(ofHead: headText)
                        guard received.writerIndex - end.upperBound >= length else { break }
                        statuses.append(status)
                        received.moveReaderIndex(to: end.upperBound + length)
                        if statuses.count { !(100..<200).contains($0) } == finals {
                            return ContinueExchange(statuses: statuses, finalHead: headText, bodySent: gate.sent)
                        }
                    }
                }
            } catch {}
            return ContinueExchange(statuses: statuses, finalHead: "", bodySent: gate.sent)
        }
    }
}

/// The body of an `expectingContinue` request: sent once, on a 100 or when the client's patience
/// ends before any answer has come, whichever is first (one lock decides).
private final class BodyGate: Sendable {
    private struct State {
        var sent = RawHTTPClient.ContinueExchange.BodySent.never
        var answered = false
    }

    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    let body: ByteBuffer
    private let state = Mutex(State())

    init(outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, body: ByteBuffer) {
        self.outbound = outbound
        self.body = body
    }

    var sent: RawHTTPClient.ContinueExchange.BodySent { state.withLock { $0.sent } }

    /// A final answer came: patience no longer sends the body.
    func answered() { state.withLock { $0.answered = true } }

    func sendOnContinue() async throws {
        try await send { _ in .afterContinue }
    }

    func sendUnlessAnswered() async throws {
        try await send { state in state.answered ? nil : .afterWaiting }
    }

    /// Sends the body if it has not gone yet and `reason` gives a reason now.
    private func send(_ reason: (inout State) -> RawHTTPClient.ContinueExchange.BodySent?) async throws {
        let first = state.withLock { state -> Bool in
            guard let why = reason(&state), state.sent == .never else { return false }
            state.sent = why
            return true
        }
        if first { try await outbound.write(body) }
    }
}

extension RawHTTPClient {
    /// The status of an answer's head (`HTTP/1.1 413 Payload Too Large` → 413); 0 without one.
    static func status(ofHead head: some StringProtocol) -> Int {
        head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    }

    /// The `Content-Length` an answer's head declares; 0 without one.
    static func contentLength(ofHead head: some StringProtocol) -> Int {
        head.split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
    }
}

extension RawHTTPClient {
    /// Sends `head`, then `body` one byte every `interval`, reading nothing meanwhile; then the
    /// answer's status (0 when the connection closed without one) and when it came.
    static func dribble(port: Int, head: String, body: [UInt8], every interval: Duration) async throws -> (status: Int, elapsed: Duration) {
        let started = ContinuousClock.now
        let channel = try await connect(port: port)
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: head))
            let sender = Task {
                for byte in body {
                    try await Task.sleep(for: interval)
                    try await outbound.write(ByteBuffer(bytes: [byte]))
                }
            }
            defer { sender.cancel() }
            var received = ByteBuffer()
            do {
                for try await var chunk in inbound {
                    received.writeBuffer(&chunk)
                    let text = String(buffer: received)
                    if let end = text.range(of: "\r\n\r\n") { return (status(ofHead: text[..<end.lowerBound]), ContinuousClock.now - started) }
                }
            } catch {}
            return (0, ContinuousClock.now - started)
        }
    }

    /// Asks for `path` on a connection whose receive buffer is a few kilobytes and that reads
    /// nothing for `wait`; then reads what there is (a plain socket: NIO would read for us). Whether
    /// the server had closed the connection by then (its end or a reset came within 5 s of
    /// reading), and how many bytes arrived.
    static func askAndNeverRead(port: Int, path: String, cookie: String = "", wait: Duration) async throws -> (closedByServer: Bool, bytes: Int) {
        let socket = try ask(port: port, path: path, cookie: cookie, receiveBuffer: 4096)
        defer { close(socket) }
        try await Task.sleep(for: wait)
        var bytes = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let giveUp = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < giveUp {
            let read = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if read > 0 {
                bytes += read
            } else if read == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                return (true, bytes)  // the end, or a reset: the server closed it
            } else {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        return (false, bytes)
    }

    /// Asks for `path` and reads its answer `chunk` bytes at a time, one read every `every`,
    /// through a receive buffer of `chunk` bytes: a slow reader. The answer's body length as
    /// declared, and how many of its bytes arrived before the end or a close.
    static func readSlowly(port: Int, path: String, cookie: String = "", chunk: Int, every interval: Duration) async throws
        -> (declared: Int, received: Int)
    {
        let socket = try ask(port: port, path: path, cookie: cookie, receiveBuffer: Int32(chunk))
        defer { close(socket) }
        var buffer = [UInt8](repeating: 0, count: chunk)
        var head: [UInt8] = []
        var declared = -1
        var received = 0
        let giveUp = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < giveUp, declared < 0 || received < declared {
            try await Task.sleep(for: interval)
            let read = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if read == 0 || (read < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { break }
            guard read > 0 else { continue }
            if declared >= 0 {
                received += read
                continue
            }
            head += buffer[..<read]
            let blank: [UInt8] = [13, 10, 13, 10]
            if let end = head.indices.dropLast(3).first(where: { Array(head[$0..<$0 + 4]) == blank }) {
                declared = contentLength(ofHead: String(decoding: head[..<end], as: UTF8.self))
                received = head.count - (end + 4)
            }
        }
        return (declared, received)
    }

    /// A plain socket to the server (NIO would read for us) with a receive buffer of `receiveBuffer`
    /// bytes, on which a GET of `path` has been sent.
    private static func ask(port: Int, path: String, cookie: String, receiveBuffer: Int32) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestSetupError("socket: \(errno)") }
        var size = receiveBuffer
        setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(cookie.isEmpty ? "" : "Cookie: \(cookie)\r\n")\r\n".utf8)
        guard connected == 0, send(socket, request, request.count, 0) == request.count else {
            let failure = errno
            close(socket)
            throw TestSetupError("connect or send: \(failure)")
        }
        return socket
    }
}
