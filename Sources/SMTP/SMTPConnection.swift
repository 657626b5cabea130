import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// An open SMTP connection driven with async/await: write one command, await its reply.
struct SMTPConnection {
    let channel: any Channel
    let logger: Logger
    /// Shared with the channel handler, which records the error that broke the connection.
    let firstFailure: FirstFailure

    /// Connects (with TLS first for implicit TLS) and arms the reply and whole-send timers.
    static func connect(
        configuration: SMTPConfiguration,
        implicitTLS: TLSUpgrade?,
        group: any EventLoopGroup,
        deadline: NIODeadline,
        logger: Logger
    ) async throws(SMTPError) -> SMTPConnection {
        let connectTimeout = min(TimeAmount(configuration.timeouts.connect), deadline - .now())
        let replyTimeout = TimeAmount(configuration.timeouts.reply)
        let firstFailure = FirstFailure()
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let implicitTLS {
                        let tls = try NIOSSLClientHandler(context: implicitTLS.context, serverHostname: implicitTLS.serverHostname)
                        try channel.pipeline.syncOperations.addHandler(tls)
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        SMTPChannelHandler(replyTimeout: replyTimeout, totalDeadline: deadline, firstFailure: firstFailure)
                    )
                }
            }
        logger.debug("SMTP connecting", metadata: ["smtp.server": "\(configuration.host):\(configuration.port)"])
        do {
            let channel = try await bootstrap.connect(host: configuration.host, port: configuration.port).get()
            return SMTPConnection(channel: channel, logger: logger, firstFailure: firstFailure)
        } catch {
            throw SMTPChannelHandler.smtpError(from: error)
        }
    }

    /// Waits for the server greeting.
    func greeting() async throws(SMTPError) -> SMTPReply {
        try await self.exchange(payload: nil, logAs: "(waiting for greeting)", hideReply: false, startTLS: nil)
    }

    /// Sends one command line (without CRLF). `logAs` replaces the line in logs (AUTH never appears);
    /// `startTLS` puts TLS under the connection as soon as the server answers 220.
    func command(_ line: String, logAs: String? = nil, startTLS: TLSUpgrade? = nil) async throws(SMTPError) -> SMTPReply {
        // Every line is built from validated parts; this guard keeps a future mistake from
        // turning into command injection.
        guard !line.utf8.contains(where: { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }) else {
            throw .invalidMessage("Refusing to send an SMTP command containing a line break.")
        }
        var payload = self.channel.allocator.buffer(capacity: line.utf8.count + 2)
        payload.writeString(line)
        payload.writeString("\r\n")
        return try await self.exchange(payload: payload, logAs: logAs ?? line, hideReply: logAs != nil, startTLS: startTLS)
    }

    /// Sends the message content after a 354 reply: CRLF-normalised, dot-stuffed, terminated.
    func content(_ bytes: [UInt8]) async throws(SMTPError) -> SMTPReply {
        var payload = self.channel.allocator.buffer(capacity: bytes.count + bytes.count / 32 + 5)
        SMTPDataEncoding.encode(bytes, into: &payload)
        return try await self.exchange(payload: payload, logAs: "(message content, \(payload.readableBytes) bytes)", hideReply: false, startTLS: nil)
    }

    func close() async {
        try? await self.channel.close()
    }

    private func exchange(payload: ByteBuffer?, logAs: String, hideReply: Bool, startTLS: TLSUpgrade?) async throws(SMTPError) -> SMTPReply {
        self.logger.debug("SMTP >>> \(logAs)")
        let reply = self.channel.eventLoop.makePromise(of: SMTPReply.self)
        let request = SMTPRequest(payload: payload, reply: reply, startTLS: startTLS)
        // If the handler is already gone (channel closed), the write fails before reaching it.
        self.channel.writeAndFlush(request).whenFailure { error in
            reply.fail(error)
        }
        do {
            let answer = try await reply.futureResult.get()
            self.logger.debug("SMTP <<< \(answer.code)\(hideReply ? "" : " " + answer.text)")
            return answer
        } catch {
            throw self.firstFailure.error ?? SMTPChannelHandler.smtpError(from: error)
        }
    }
}
