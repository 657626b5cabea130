import Foundation
import NIOCore

/// Lets a number of waiters through together, once all of them have arrived (or at once when a
/// waiting task is cancelled: one party that never comes must not hold the others for ever).
actor Barrier {
    private let parties: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var open = false

    init(parties: Int) { self.parties = parties }

    func arrive() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiting.append(continuation)
                if open || waiting.count == parties || Task.isCancelled { letEveryoneThrough() }
            }
        } onCancel: {
            Task { await self.letEveryoneThrough() }
        }
    }

    private func letEveryoneThrough() {
        open = open || waiting.count == parties
        waiting.forEach { $0.resume() }
        waiting.removeAll()
    }
}

/// Requests in flight at the same moment. The test client (`app.client`, under every `Browser` and
/// `APIClient`) has one connection and the server answers a connection's requests in turn, so
/// requests sent "at once" through it never overlap. Here each request has a connection of its
/// own; all of each is written but its last bytes, and once every one is that far the ends go
/// together.
enum AtOnce {
    struct Request: Sendable {
        let bytes: ByteBuffer

        init(head: String, body: ByteBuffer = ByteBuffer()) {
            var bytes = ByteBuffer(string: head)
            var body = body
            bytes.writeBuffer(&body)
            self.bytes = bytes
        }
    }

    /// The answers (status and body), in the order of `requests`; a failure of the test's own
    /// when they have not all come within `limit` (a request stuck on a lock fails, not hangs, the suite).
    static func send(_ requests: [Request], port: Int, within limit: Duration = .seconds(30)) async throws -> [(status: Int, body: String)] {
        try await withThrowingTaskGroup(of: [(status: Int, body: String)]?.self) { group in
            group.addTask { try await sendTogether(requests, port: port) }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let answers = try await group.next() ?? nil else {
                throw TestSetupError("\(requests.count) requests sent at once were not all answered within \(limit)")
            }
            return answers
        }
    }

    private static func sendTogether(_ requests: [Request], port: Int) async throws -> [(status: Int, body: String)] {
        let barrier = Barrier(parties: requests.count)
        return try await withThrowingTaskGroup(of: (Int, (status: Int, body: String)).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask {
                    let answer = try await RawHTTPClient.sendHoldingBackTheEnd(
                        port: port, head: "", body: request.bytes, heldBack: min(16, request.bytes.readableBytes - 1)
                    ) {
                        await barrier.arrive()
                        // Every request's beginning read by the server before any ends.
                        try? await Task.sleep(for: .milliseconds(200))
                    }
                    return (index, answer)
                }
            }
            var answers = [(status: Int, body: String)](repeating: (0, ""), count: requests.count)
            for try await (index, answer) in group { answers[index] = answer }
            return answers
        }
    }
}

extension Browser {
    /// The form post `submit` makes (this browser's cookies and the page's CSRF token, fetched
    /// now), to send with `AtOnce`. Cookies its answer sets are not kept.
    func formRequest(_ action: String, from page: String, _ fields: [(String, String)]) async throws -> AtOnce.Request {
        let body = Self.urlEncoded([("_csrf", try await csrfToken(on: page))] + fields)
        return AtOnce.Request(head: head(.post, action, extra: "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n"), body: ByteBuffer(string: body))
    }

    /// A GET with this browser's cookies, to send with `AtOnce`.
    func getRequest(_ path: String) -> AtOnce.Request {
        AtOnce.Request(head: head(.get, path, extra: ""))
    }

    private func head(_ method: HTTPMethodName, _ path: String, extra: String) -> String {
        var head = "\(method.rawValue) \(path) HTTP/1.1\r\nHost: localhost\r\nUser-Agent: \(userAgent)\r\n"
        if !cookies.isEmpty { head += "Cookie: \(cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; "))\r\n" }
        return head + extra + "Connection: close\r\n\r\n"
    }

    enum HTTPMethodName: String { case get = "GET", post = "POST" }
}

extension APIClient {
    /// An `/api` request as `send` makes it (JSON content type), to send with `AtOnce`.
    func request(_ method: String, _ path: String, body: String = "", authorization: String?) -> AtOnce.Request {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        if let authorization { head += "Authorization: \(authorization)\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        return AtOnce.Request(head: head, body: ByteBuffer(string: body))
    }

    /// `signIn`'s request, to send with `AtOnce`.
    func signInRequest(email: String, password: String) -> AtOnce.Request {
        request("POST", "/api/signin", body: "{\"email\":\"\(email)\",\"password\":\"\(encrypt(password))\"}", authorization: basicAuthorization)
    }
}
