import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import SelfieCore
import Testing

@testable import App

@Suite("Static files answered on their connection's event loop")
struct StaticAssetsOnTheLoopTests {
    @Test("pipelined requests get their answers in the order sent, and a static file the same answer whoever gives it (the loop or the router)")
    func pipelinedInOrder() async throws {
        try await withTestApp { app in
            let port = try #require(app.client.port)
            let html = try await app.client.execute(uri: "/signin", method: .get).text
            let css = String(try #require(html.firstMatch(of: /href="(\/assets\/css\/app\.[0-9a-f]{16}\.css)"/)).1)
            let alone = try await app.client.execute(uri: css, method: .get)
            let eTag = try #require(alone.headers[.eTag])
            // The first is answered on the loop (nothing before it on the connection); the one
            // after /signin arrives in the same read as /signin, before its answer: the router's.
            let requests: [(method: String, path: String, extra: String)] = [
                ("GET", css, ""),
                ("GET", "/signin", ""),
                ("GET", css, ""),
                ("HEAD", css, ""),
                ("GET", css, "If-None-Match: \(eTag)\r\n"),
                ("GET", "/assets/no-such-file.css", ""),
                ("GET", css + "?v=2", "Connection: close\r\n"),
            ]
            func wire(_ requests: [(method: String, path: String, extra: String)]) -> String {
                requests.map { "\($0.method) \($0.path) HTTP/1.1\r\nHost: localhost\r\n\($0.extra)\r\n" }.joined()
            }
            let (received, closed) = try await RawHTTPClient.pipelined(port: port, requests: wire(requests))
            let answers = try HTTPAnswers.parse(received, methods: requests.map(\.method))
            #expect(closed, "Connection: close ends the connection after its answer")
            #expect(answers.map(\.status) == [200, 200, 200, 200, 304, 404, 200])
            #expect(answers[1].headers["content-type"] == "text/html; charset=utf-8")
            #expect(answers[5].headers["content-type"] == "text/html; charset=utf-8", "the 404 page is the router's")
            let expected = alone.headers.filter { $0.name != .xRequestID && $0.name != .date }.map { "\($0.name.rawName)=\($0.value)" }
            for index in [0, 2, 3, 6] {
                #expect(answers[index].comparable == expected, "answer \(index) to \(requests[index].path)")
            }
            #expect(answers[4].comparable == expected.filter { !$0.hasPrefix("Content-Length=") }, "304: the same headers but the length")
            for index in [0, 2, 6] {
                #expect(answers[index].body == Array(alone.body.readableBytesView), "answer \(index): the stylesheet's bytes")
            }
            #expect(answers[3].body.isEmpty, "HEAD: no body")
            #expect(answers[4].body.isEmpty && answers[4].headers["etag"] == eTag, "304: no body, the same ETag")
            let ids = answers.compactMap { $0.headers["x-request-id"] }
            #expect(ids.count == 7 && Set(ids).count == 7, "each answer has a request id of its own")
            for answer in answers {
                let date = try #require(answer.headers["date"].flatMap(HTTPAnswers.parseDate))
                #expect(abs(date.timeIntervalSinceNow) < 5, "Date: \(answer.headers["date"] ?? "")")
            }

            // On a new connection with nothing before them, the HEAD, the 304 and the closing
            // request are answered on the loop: the same as the router's answers above.
            let again = Array(requests[3...4]) + [requests[6]]
            let (received2, closed2) = try await RawHTTPClient.pipelined(port: port, requests: wire(again))
            let onTheLoop = try HTTPAnswers.parse(received2, methods: again.map(\.method))
            #expect(closed2)
            #expect(onTheLoop.map(\.status) == [200, 304, 200])
            #expect(onTheLoop.map(\.comparable) == [answers[3].comparable, answers[4].comparable, answers[6].comparable])
            #expect(onTheLoop.map(\.body) == [[], [], answers[6].body])
        }
    }

    @Test("a file is answered on the loop only in its turn, without a body, while the client reads its answers; all else goes to the router")
    func answersOnlyInTurn() throws {
        let (everyAnswer, assets) = try Self.publicFiles()
        let capture = LogCapture()
        let channel = EmbeddedChannel()
        let closes = CloseRecorder()
        try channel.pipeline.syncOperations.addHandlers(
            closes,
            StaticAssetsOnTheLoop(.init(assets, everyAnswer: everyAnswer, logger: capture.logger(level: .info)))
        )
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let css = try assets.url(for: "/assets/css/app.css")
        func request(_ method: HTTPRequest.Method, _ path: String, _ fields: HTTPFields = [:]) throws {
            try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: method, scheme: nil, authority: "localhost", path: path, headerFields: fields)))
            try channel.writeInbound(HTTPRequestPart.end(nil))
        }
        /// What went on to the router: each head's path, and "body" and "end".
        func passedOn() throws -> [String] {
            var parts: [String] = []
            while let part = try channel.readInbound(as: HTTPRequestPart.self) {
                switch part {
                case .head(let head): parts.append(head.path ?? "")
                case .body: parts.append("body")
                case .end: parts.append("end")
                }
            }
            return parts
        }
        /// What was written towards the client: "head 200", "body 18226", "end".
        func written() throws -> [String] {
            var parts: [String] = []
            while let part = try channel.readOutbound(as: HTTPResponsePart.self) {
                switch part {
                case .head(let head): parts.append("head \(head.status.code)")
                case .body(let bytes): parts.append("body \(bytes.readableBytes)")
                case .end: parts.append("end")
                }
            }
            return parts
        }
        func routerAnswers() throws {
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }
        let size = assets.answer(path: css, ifNoneMatch: nil)?.body?.readableBytes ?? 0

        try request(.get, css)
        #expect(try passedOn() == [], "nothing before it: answered here")
        #expect(try written() == ["head 200", "body \(size)", "end"])

        try request(.get, "/signin")
        try request(.get, css)
        #expect(try passedOn() == ["/signin", "end", css, "end"], "/signin is not answered yet: the stylesheet waits its turn at the router")
        try routerAnswers()
        try request(.get, css + "?again")
        #expect(try passedOn() == [css + "?again", "end"], "the first stylesheet's answer is still to come")
        try routerAnswers()
        try routerAnswers()
        #expect(try written() == ["head 200", "end", "head 200", "end", "head 200", "end"], "the router's answers pass through")

        // An answer being streamed (a photo): its head is out, its end is not.
        try request(.get, "/media/photo")
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try request(.get, css)
        #expect(try passedOn() == ["/media/photo", "end", css, "end"], "the photo's answer has not ended: the stylesheet waits")
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        try routerAnswers()
        _ = try written()

        try request(.head, css)
        #expect(try passedOn() == [])
        #expect(try written() == ["head 200", "end"], "HEAD: no body")
        let eTag = try #require(assets.answer(path: css, ifNoneMatch: nil)?.headers[.eTag])
        try request(.get, css, [.ifNoneMatch: eTag])
        #expect(try passedOn() == [])
        #expect(try written() == ["head 304", "end"])
        try request(.get, css + "?token=secret&token=again")
        #expect(try passedOn() == [])
        #expect(try written() == ["head 200", "body \(size)", "end"], "a query does not change the file")

        // A body: the router's, which answers at once and bounds the rest (LingeringCloseHandler).
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "localhost", path: css, headerFields: [.contentLength: "5"])))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "12345")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try request(.get, css, [.transferEncoding: "chunked"])
        #expect(try passedOn() == [css, "body", "end", css, "end"], "a GET with a body, declared or chunked: the router's")
        try routerAnswers()
        try routerAnswers()
        _ = try written()

        try request(.get, "/assets/no-such-file.css")
        try request(.post, css)
        try request(.get, "/assets")
        #expect(try passedOn() == ["/assets/no-such-file.css", "end", css, "end", "/assets", "end"], "no such file, or not a GET: the router's")
        for _ in 0..<3 { try routerAnswers() }
        _ = try written()

        // A client that does not read its answers: the router's writer waits for it; nothing piles up here.
        channel.isWritable = false
        try request(.get, css)
        #expect(try passedOn() == [css, "end"])
        try routerAnswers()
        _ = try written()
        channel.isWritable = true

        #expect(channel.isActive && closes.modes == [])
        try request(.get, css, [.connection: "close"])
        #expect(try written() == ["head 200", "body \(size)", "end"])
        try request(.get, css)
        #expect(try passedOn() == [] && written() == [], "nothing is read after Connection: close")
        channel.embeddedEventLoop.run()
        #expect(closes.modes == [.output], "Connection: close: the sending side closed once the answer is out")
        channel.embeddedEventLoop.advanceTime(by: LingeringCloseHandler.defaultLinger)
        #expect(closes.modes == [.output, .all], "a client that keeps its side open is closed after the linger")
        #expect(!channel.isActive)

        let lines = capture.all.filter { $0.contains("request") && $0.contains("route=/assets/**") }
        #expect(lines.count == 5, "one log line for each of the five answered here: \(lines)")
        #expect(lines.allSatisfy { $0.contains("hb.request.id=") && $0.contains("hb.request.path=\(css)") })
        #expect(lines.filter { $0.contains("hb.response.status=304") }.count == 1)
        #expect(lines.filter { $0.contains("hb.request.query_keys=token") }.count == 1, "the query's names are logged")
        #expect(!capture.all.contains { $0.contains("secret") }, "never its values")
    }

    @Test("after a request asking Connection: close that the router answers, later requests are the router's too")
    func routerAfterItsClose() throws {
        let (channel, css) = try Self.handlerAlone()
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "localhost", path: "/signin", headerFields: [.connection: "close"])))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        while try channel.readOutbound(as: HTTPResponsePart.self) != nil {}
        while try channel.readInbound(as: HTTPRequestPart.self) != nil {}
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "localhost", path: css)))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil, "no answer after the router's last one")
        #expect(try channel.readInbound(as: HTTPRequestPart.self) != nil, "passed on: the router, which is closing, decides")
    }

    @Test("only files under /assets/ are answered, as the router's route says, whatever else the directory holds")
    func onlyUnderAssets() throws {
        let directory = temporaryBlobDirectory()
        try FileManager.default.createDirectory(atPath: "\(directory)/assets", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("User-agent: *\n".utf8).write(to: URL(fileURLWithPath: "\(directory)/robots.txt"))
        try Data("body {}\n".utf8).write(to: URL(fileURLWithPath: "\(directory)/assets/site.css"))
        let (everyAnswer, _) = try Self.publicFiles()
        let assets = try StaticAssets(directory: directory, securityHeaders: everyAnswer.securityHeaders)
        #expect(assets.answer(path: "/robots.txt", ifNoneMatch: nil) == nil)
        #expect(assets.answer(path: "/assets/site.css", ifNoneMatch: nil)?.status == .ok)
    }

    @Test("after a request the codec could not read, every later request on the connection is the router's")
    func routerAfterAnError() throws {
        let (channel, css) = try Self.handlerAlone()
        struct Unreadable: Error {}
        channel.pipeline.fireErrorCaught(Unreadable())
        #expect(throws: Unreadable.self, "the error goes on to the router") { try channel.throwIfErrorCaught() }
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "localhost", path: css)))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try channel.readOutbound(as: HTTPResponsePart.self) == nil, "not answered here")
        #expect(try channel.readInbound(as: HTTPRequestPart.self) != nil, "passed on")
    }

    @Test("behind Hummingbird's connection state: a connection busy with static files is not closed as idle, an idle one is")
    func idleTimeoutSeesTheseRequests() async throws {
        let (everyAnswer, assets) = try Self.publicFiles()
        let channel = EmbeddedChannel()
        // The pipeline exactly as the server builds it for each connection, with a short idle timeout.
        let connection = ConnectionOnItsEventLoop(
            responder: { _, _, _ in },
            idleTimeout: .milliseconds(1500),
            stalledReaderTimeout: .seconds(60),
            staticAssets: .init(assets, everyAnswer: everyAnswer, logger: testLogger)
        )
        let handled = try await connection.setup(channel: channel, logger: testLogger).get()
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
        let css = try assets.url(for: "/assets/css/app.css")
        func getStylesheet() throws {
            try channel.writeInbound(ByteBuffer(string: "GET \(css) HTTP/1.1\r\nHost: localhost\r\n\r\n"))
            var answer = ByteBuffer()
            while var part = try channel.readOutbound(as: ByteBuffer.self) { answer.writeBuffer(&part) }
            #expect(String(buffer: answer).hasPrefix("HTTP/1.1 200 OK\r\n"))
        }
        // The idle check reads the real clock; its timer runs on the embedded loop's clock, and
        // fires only when the test advances it. A late wake-up only makes the connection idler.
        try await Task.sleep(for: .seconds(2))
        try getStylesheet()
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(channel.isActive, "idle for 2 s since it opened, but a request just now: not idle")
        try await Task.sleep(for: .seconds(2))
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive, "then 2 s without one: closed as idle")
        // What Hummingbird's connection task does once the channel closes.
        try? await handled.executeThenClose { _, _ in }
    }

    /// The handler alone on a channel, and the stylesheet's fingerprinted path.
    static func handlerAlone() throws -> (EmbeddedChannel, css: String) {
        let (everyAnswer, assets) = try publicFiles()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(StaticAssetsOnTheLoop(.init(assets, everyAnswer: everyAnswer, logger: testLogger)))
        return (channel, try assets.url(for: "/assets/css/app.css"))
    }

    /// What the server answers every request with, and the files under `Public/`, as it starts.
    static func publicFiles() throws -> (EveryAnswer, StaticAssets) {
        // No database is reached: these tests drive a handler, not the server.
        let config = try AppConfiguration.testing(database: DatabaseURL("postgres://selfie:pw@127.0.0.1:1/selfie"))
        let everyAnswer = EveryAnswer(config: config)
        return (everyAnswer, try StaticAssets(directory: "\(repositoryRoot)/Public", securityHeaders: everyAnswer.securityHeaders))
    }

    @Test("the Date header is an IMF-fixdate (RFC 9110 §5.6.7)")
    func dateHeader() {
        #expect(HTTPDateHeader.format(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDateHeader.format(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDateHeader.format(secondsSince1970: 1_798_761_599) == "Thu, 31 Dec 2026 23:59:59 GMT")
    }
}

/// Records each close asked of the channel; a close of the sending side only is recorded and not
/// passed on (an embedded channel would close whole).
final class CloseRecorder: ChannelOutboundHandler {
    typealias OutboundIn = HTTPResponsePart
    private(set) var modes: [CloseMode] = []

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        modes.append(mode)
        if mode == .output { promise?.succeed(()) } else { context.close(mode: mode, promise: promise) }
    }
}

/// HTTP/1.1 answers read back from the bytes of a pipelined exchange.
enum HTTPAnswers {
    struct Answer {
        let status: Int
        /// Lower-cased names.
        let headers: [String: String]
        /// In order, as `name=value` with the names as sent, without the two that differ per answer.
        let comparable: [String]
        let body: [UInt8]
    }

    struct Malformed: Error {}

    /// `methods`: the requests', in order (a HEAD's answer and a 304 have no body whatever
    /// their Content-Length says).
    static func parse(_ bytes: [UInt8], methods: [String]) throws -> [Answer] {
        var answers: [Answer] = []
        var offset = 0
        let separator = Array("\r\n\r\n".utf8)
        for method in methods {
            guard let end = bytes[offset...].firstRange(of: separator) else { throw Malformed() }
            let lines = String(decoding: bytes[offset..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { throw Malformed() }
            var headers: [String: String] = [:]
            var comparable: [String] = []
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { throw Malformed() }
                let name = String(line[..<colon])
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers[name.lowercased()] = value
                if !["x-request-id", "date"].contains(name.lowercased()) { comparable.append("\(name)=\(value)") }
            }
            let length = method == "HEAD" || status == 304 ? 0 : Int(headers["content-length"] ?? "0") ?? 0
            offset = end.upperBound + length
            guard offset <= bytes.count else { throw Malformed() }
            answers.append(Answer(status: status, headers: headers, comparable: comparable, body: Array(bytes[end.upperBound..<offset])))
        }
        return answers
    }

    static func parseDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
