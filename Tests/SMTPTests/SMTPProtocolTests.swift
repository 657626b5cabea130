import NIOCore
import NIOEmbedded
import NIOSSL
import Testing

@testable import SMTP

@Suite("SMTP protocol pieces")
struct SMTPProtocolTests {
    private func parse(_ lines: [String]) throws(SMTPError) -> [SMTPReply] {
        var parser = SMTPReplyParser()
        var replies: [SMTPReply] = []
        for line in lines {
            if let reply = try parser.consume(line: Array(line.utf8)) {
                replies.append(reply)
            }
        }
        return replies
    }

    @Test("multi-line replies are joined; a bare code is a complete reply")
    func multiLineReplies() throws {
        let replies = try self.parse(["250-sink.test", "250-STARTTLS", "250-AUTH PLAIN LOGIN", "250 HELP", "354"])
        #expect(replies == [
            SMTPReply(code: 250, lines: ["sink.test", "STARTTLS", "AUTH PLAIN LOGIN", "HELP"]),
            SMTPReply(code: 354, lines: [""]),
        ])
        let capabilities = ServerCapabilities(ehloReply: replies[0])
        #expect(capabilities.startTLS)
        #expect(capabilities.authMechanisms == ["PLAIN", "LOGIN"])
        #expect(ServerCapabilities(ehloReply: SMTPReply(code: 250, lines: ["x", "AUTH=login"])).authMechanisms == ["LOGIN"])
    }

    @Test("garbage and code changes inside a reply are protocol violations", arguments: [
        ["HTTP/1.1 400 Bad Request"],
        ["250-first", "251 second"],
        ["25"],
        ["250_x"],
    ])
    func malformedReplies(lines: [String]) {
        let error = #expect(throws: SMTPError.self) { try self.parse(lines) }
        #expect(error?.kind == .protocolViolation)
        #expect(error?.isPermanent == false)
    }

    @Test("DATA content: every line break becomes CRLF, leading dots are doubled, a terminator follows")
    func dataEncoding() {
        var buffer = ByteBuffer()
        SMTPDataEncoding.encode(Array(".hidden\nline\r\n..two\rlast".utf8), into: &buffer)
        #expect(String(buffer: buffer) == "..hidden\r\nline\r\n...two\r\nlast\r\n.\r\n")
        var ended = ByteBuffer()
        SMTPDataEncoding.encode(Array("done\r\n.\r\n".utf8), into: &ended)
        #expect(String(buffer: ended) == "done\r\n..\r\n.\r\n", "a lone '.' line in content can't end DATA early")
    }

    @Test("after a clean 220 to STARTTLS, TLS is put first in the pipeline and the reply delivered")
    func startTLSInsertsTLS() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(SMTPChannelHandler(replyTimeout: .seconds(5), totalDeadline: .now() + .seconds(5)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 25)).wait()
        let reply = channel.eventLoop.makePromise(of: SMTPReply.self)
        let upgrade = TLSUpgrade(context: try NIOSSLContextFactory.make(), serverHostname: "localhost")
        try channel.writeOutbound(SMTPRequest(payload: ByteBuffer(string: "STARTTLS\r\n"), reply: reply, startTLS: upgrade))
        try channel.writeInbound(ByteBuffer(string: "220 Go ahead\r\n"))
        #expect(try reply.futureResult.wait().code == 220)
        #expect((try? channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self)) != nil)
        let outbound = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(String(buffer: outbound) == "STARTTLS\r\n")
        let clientHello = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(clientHello.getInteger(at: clientHello.readerIndex, as: UInt8.self) == 0x16, "a TLS handshake record follows")
        _ = try? channel.finish()
    }

    @Test("data the server sends right after agreeing to STARTTLS is refused (RFC 3207 injection)")
    func startTLSInjectionIsRefused() throws {
        let channel = EmbeddedChannel()
        let handler = SMTPChannelHandler(replyTimeout: .seconds(5), totalDeadline: .now() + .seconds(5))
        try channel.pipeline.syncOperations.addHandler(handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 25)).wait()

        let sslContext = try NIOSSLContextFactory.make()
        let reply = channel.eventLoop.makePromise(of: SMTPReply.self)
        let upgrade = TLSUpgrade(context: sslContext, serverHostname: "localhost")
        try channel.writeOutbound(SMTPRequest(payload: ByteBuffer(string: "STARTTLS\r\n"), reply: reply, startTLS: upgrade))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "STARTTLS\r\n"))

        try channel.writeInbound(ByteBuffer(string: "220 Go ahead\r\n250 injected before TLS\r\n"))
        channel.embeddedEventLoop.run()
        let error = #expect(throws: SMTPError.self) { try reply.futureResult.wait() }
        #expect(error?.kind == .protocolViolation)
        #expect(!channel.isActive, "the connection is closed")
    }
}
