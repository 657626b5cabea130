import NIOCore
import NIOSSL
import Synchronization

/// One command for ``SMTPChannelHandler``: the bytes to write (none when only waiting for the
/// greeting), the promise the matching reply completes, and for STARTTLS the TLS set-up to insert
/// as soon as the server agrees.
struct SMTPRequest: Sendable {
    var payload: ByteBuffer?
    var reply: EventLoopPromise<SMTPReply>
    var startTLS: TLSUpgrade?
}

/// The first error of a connection, readable after the channel (and this handler) is gone: a
/// command written after the failure never reaches the handler, and should still report the cause
/// (e.g. the TLS error) rather than "channel closed".
final class FirstFailure: Sendable {
    private let value = Mutex<SMTPError?>(nil)

    var error: SMTPError? { self.value.withLock { $0 } }

    func record(_ error: SMTPError) {
        self.value.withLock { stored in
            if stored == nil {
                stored = error
            }
        }
    }
}

/// What is needed to put TLS under an established plain-text connection.
struct TLSUpgrade: Sendable {
    var context: NIOSSLContext
    var serverHostname: String?
}

/// Frames server replies, pairs them with the commands written, and enforces the reply and
/// whole-send time limits. Any failure fails every waiting command with one ``SMTPError`` and
/// closes the channel; later commands fail with the same error.
final class SMTPChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = SMTPRequest
    typealias OutboundOut = ByteBuffer

    private struct Waiter {
        var reply: EventLoopPromise<SMTPReply>
        var startTLS: TLSUpgrade?
        var timeout: Scheduled<Void>
    }

    private let replyTimeout: TimeAmount
    private let totalDeadline: NIODeadline
    private let firstFailure: FirstFailure
    private var inbound = ByteBuffer()
    private var parser = SMTPReplyParser()
    private var waiters = CircularBuffer<Waiter>()
    /// Replies that arrived before anyone asked: only the greeting legitimately does.
    private var unclaimed = CircularBuffer<SMTPReply>()
    private var failure: SMTPError?
    private var totalTimeout: Scheduled<Void>?

    init(replyTimeout: TimeAmount, totalDeadline: NIODeadline, firstFailure: FirstFailure = FirstFailure()) {
        self.replyTimeout = replyTimeout
        self.totalDeadline = totalDeadline
        self.firstFailure = firstFailure
    }

    func channelActive(context: ChannelHandlerContext) {
        // Scheduled here rather than at creation: before the channel is active only the connect
        // timeout applies, so a connect failure is reported as what it is.
        self.totalTimeout = context.eventLoop.assumeIsolated().scheduleTask(deadline: self.totalDeadline) {
            self.fail(context: context, with: .transient(.timeout, "The whole send took longer than its time limit."))
        }
        context.fireChannelActive()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = self.unwrapOutboundIn(data)
        if let failure = self.failure {
            request.reply.fail(failure)
            promise?.fail(failure)
            return
        }
        if request.payload != nil, let stray = self.unclaimed.first {
            let error = Self.unsolicited(stray)
            request.reply.fail(error)
            promise?.fail(error)
            self.fail(context: context, with: error)
            return
        }
        let timeoutText = "The server did not reply within \(self.replyTimeout)."
        let timeout = context.eventLoop.assumeIsolated().scheduleTask(in: self.replyTimeout) {
            self.fail(context: context, with: .transient(.timeout, timeoutText))
        }
        self.waiters.append(Waiter(reply: request.reply, startTLS: request.startTLS, timeout: timeout))
        if let payload = request.payload {
            context.writeAndFlush(self.wrapOutboundOut(payload), promise: promise)
        } else {
            promise?.succeed()
        }
        if let waiting = self.unclaimed.popFirst() {
            self.deliver(waiting, context: context)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = self.unwrapInboundIn(data)
        self.inbound.writeBuffer(&bytes)
        do {
            while self.failure == nil, let line = self.nextLine() {
                if let reply = try self.parser.consume(line: line.readableBytesView) {
                    self.deliver(reply, context: context)
                }
            }
            if self.inbound.readableBytes > SMTPReplyParser.maximumLineLength {
                throw SMTPError.transient(.protocolViolation, "The server sent a reply line longer than \(SMTPReplyParser.maximumLineLength) bytes.")
            }
            self.inbound.discardReadBytes()
        } catch {
            self.fail(context: context, with: Self.smtpError(from: error))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.fail(context: context, with: .transient(.connection, "The server closed the connection."))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.fail(context: context, with: Self.smtpError(from: error))
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.fail(context: context, with: .transient(.connection, "The connection was torn down."), close: false)
    }

    /// Hands a reply to the oldest waiting command; for an accepted STARTTLS, inserts TLS first.
    private func deliver(_ reply: SMTPReply, context: ChannelHandlerContext) {
        guard self.failure == nil else { return }
        guard let waiter = self.waiters.first else {
            self.unclaimed.append(reply)
            if self.unclaimed.count > 1 {
                self.fail(context: context, with: Self.unsolicited(reply))
            }
            return
        }
        if let upgrade = waiter.startTLS, reply.code == 220 {
            // RFC 3207 §5 / CVE-2011-0411: anything the server (or a man in the middle) sent after
            // the 220 would be read as if it came over TLS. Refuse instead.
            guard self.inbound.readableBytes == 0, self.parser.isIdle, self.unclaimed.isEmpty else {
                self.fail(context: context, with: .transient(.protocolViolation, "The server sent more data right after agreeing to STARTTLS; refusing to continue."))
                return
            }
            do {
                let tls = try NIOSSLClientHandler(context: upgrade.context, serverHostname: upgrade.serverHostname)
                try context.pipeline.syncOperations.addHandler(tls, position: .first)
            } catch {
                self.fail(context: context, with: .transient(.tls, "Could not start TLS: \(error)"))
                return
            }
        }
        self.waiters.removeFirst()
        waiter.timeout.cancel()
        waiter.reply.succeed(reply)
    }

    /// The next LF-terminated line without its line ending, or nil when none is complete.
    private func nextLine() -> ByteBuffer? {
        let view = self.inbound.readableBytesView
        guard let newline = view.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let length = newline - view.startIndex
        var line = self.inbound.readSlice(length: length)!
        self.inbound.moveReaderIndex(forwardBy: 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") {
            line = line.getSlice(at: line.readerIndex, length: line.readableBytes - 1)!
        }
        return line
    }

    private func fail(context: ChannelHandlerContext, with error: SMTPError, close: Bool = true) {
        if self.failure == nil {
            self.failure = error
            self.firstFailure.record(error)
        }
        let failure = self.failure!
        self.totalTimeout?.cancel()
        while let waiter = self.waiters.popFirst() {
            waiter.timeout.cancel()
            waiter.reply.fail(failure)
        }
        if close {
            context.close(promise: nil)
        }
    }

    private static func unsolicited(_ reply: SMTPReply) -> SMTPError {
        if reply.code >= 400 {
            return .reply(reply, to: "nothing (unsolicited reply)")
        }
        return .transient(.protocolViolation, "The server sent a reply nobody asked for: \(reply.code) \(reply.text)")
    }

    /// Classifies errors from the network, TLS and this handler into transient ``SMTPError``s.
    static func smtpError(from error: any Error) -> SMTPError {
        switch error {
        case let error as SMTPError:
            return error
        case let error as NIOSSLError:
            return .transient(.tls, "TLS failed: \(error)")
        case let error as NIOSSLExtraError:
            return .transient(.tls, "TLS failed: \(error)")
        case let error as BoringSSLError:
            return .transient(.tls, "TLS failed: \(error)")
        case ChannelError.connectTimeout:
            return .transient(.timeout, "Could not connect to the server within the connect time limit.")
        default:
            return .transient(.connection, "The connection failed: \(error)")
        }
    }
}
