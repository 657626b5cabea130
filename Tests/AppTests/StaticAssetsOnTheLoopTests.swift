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
            let wire = requests.map { "\($0.method) \($0.path) HTTP/1.1\r\nHost: localhost\r\n\($0.extra)\r\n" }.joined()
            let (received, closed) = try await RawHTTPClient.pipelined(port: port, requests: wire)
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
        }
    }

    @Test("the handler answers a file itself only when nothing before it on the connection is still being answered")
    func answersOnlyInTurn() throws {
        let config = try AppConfiguration.testing(database: DatabaseURL("postgres://selfie:pw@127.0.0.1:1/selfie"))
        let everyAnswer = EveryAnswer(config: config)
        let assets = try StaticAssets(directory: "\(repositoryRoot)/Public", securityHeaders: everyAnswer.securityHeaders)
        let capture = LogCapture()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            StaticAssetsOnTheLoop(.init(assets, everyAnswer: everyAnswer, logger: capture.logger(level: .info)))
        )
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

        try request(.head, css)
        #expect(try passedOn() == [])
        #expect(try written() == ["head 200", "end"], "HEAD: no body")
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "localhost", path: css)))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "a GET's body means nothing")))
        #expect(try written() == [], "answered once the request has been read whole")
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try passedOn() == [], "its body is dropped, not passed on")
        #expect(try written() == ["head 200", "body \(size)", "end"])

        let eTag = try #require(assets.answer(path: css, ifNoneMatch: nil)?.headers[.eTag])
        try request(.get, css, [.ifNoneMatch: eTag])
        #expect(try passedOn() == [])
        #expect(try written() == ["head 304", "end"])

        try request(.get, "/assets/no-such-file.css")
        try request(.post, css)
        #expect(try passedOn() == ["/assets/no-such-file.css", "end", css, "end"], "no such file, or not a GET: the router's")
        try routerAnswers()
        try routerAnswers()
        _ = try written()

        try request(.get, css, [.connection: "close"])
        #expect(try written() == ["head 200", "body \(size)", "end"])
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive, "Connection: close: closed once the answer is out")

        let lines = capture.all.filter { $0.contains("request") && $0.contains("route=/assets/**") }
        #expect(lines.count == 5, "one log line for each of the five answered here: \(lines)")
        #expect(lines.allSatisfy { $0.contains("hb.request.id=") && $0.contains("hb.request.path=\(css)") })
        #expect(lines.filter { $0.contains("hb.response.status=304") }.count == 1)
    }

    @Test("behind Hummingbird's connection state: a graceful shutdown waits for the answer to a static file's request still being read")
    func shutdownWaitsForTheAnswer() async throws {
        let config = try AppConfiguration.testing(database: DatabaseURL("postgres://selfie:pw@127.0.0.1:1/selfie"))
        let everyAnswer = EveryAnswer(config: config)
        let assets = try StaticAssets(directory: "\(repositoryRoot)/Public", securityHeaders: everyAnswer.securityHeaders)
        let channel = EmbeddedChannel()
        // The pipeline exactly as the server builds it for each connection.
        let connection = ConnectionOnItsEventLoop(
            responder: { _, _, _ in },
            idleTimeout: .seconds(60),
            staticAssets: .init(assets, everyAnswer: everyAnswer, logger: testLogger)
        )
        let handled = try await connection.setup(channel: channel, logger: testLogger).get()
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
        let css = try assets.url(for: "/assets/css/app.css")
        try channel.writeInbound(ByteBuffer(string: "GET \(css) HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\nab"))
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(channel.isActive, "a request is still being read: the connection stays open for its answer")
        try channel.writeInbound(ByteBuffer(string: "cde"))
        var answer = ByteBuffer()
        while var part = try channel.readOutbound(as: ByteBuffer.self) { answer.writeBuffer(&part) }
        #expect(String(buffer: answer).hasPrefix("HTTP/1.1 200 OK\r\n"), "answered: \(String(buffer: answer).prefix(40))")
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive, "then closed, as the shutdown asked")
        // What Hummingbird's connection task would do once the channel closes.
        try? await handled.executeThenClose { _, _ in }
    }

    @Test("the Date header is an IMF-fixdate (RFC 9110 §5.6.7)")
    func dateHeader() {
        #expect(HTTPDateHeader.format(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDateHeader.format(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDateHeader.format(secondsSince1970: 1_798_761_599) == "Thu, 31 Dec 2026 23:59:59 GMT")
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
