import Foundation
import Testing

/// The boundary between the domain and the surfaces, as the compiler cannot see it.
@Suite("Layering")
struct LayeringTests {
    /// Every Swift file below `Sources/<target>`, with its text.
    static func sources(of target: String) throws -> [(path: String, text: String)] {
        let root = "\(repositoryRoot)/Sources/\(target)"
        let walker = try #require(FileManager.default.enumerator(atPath: root))
        var files: [(String, String)] = []
        while let path = walker.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            files.append((path, try String(contentsOfFile: "\(root)/\(path)", encoding: .utf8)))
        }
        return files
    }

    @Test("the core imports no HTTP server framework and speaks no HTTP status")
    func coreKnowsNoHTTPServer() throws {
        let files = try Self.sources(of: "SelfieCore")
        #expect(files.count > 40)
        // HummingbirdBcrypt is allowed: a standalone bcrypt module that does not depend on the framework.
        let forbidden = try Regex(#"(?m)^\s*(@_exported\s+)?import\s+(Hummingbird|HummingbirdCore|HummingbirdRouter|HummingbirdAuth|HummingbirdTesting|HTTPTypes|NIOHTTPTypes)\s*$"#)
        for (path, text) in files {
            #expect(text.firstMatch(of: forbidden) == nil, "\(path) imports a server framework module")
            #expect(!text.contains("HTTPResponse.Status"), "\(path) chooses an HTTP status")
        }
    }
}

extension LayeringTests {
    @Test("SQL lives in repositories: only …Repository files, Database/ and the repositories' shared UserAccess import PostgresNIO (and CoreServices, which builds the pool)")
    func sqlInRepositories() throws {
        let allowed = ["Database/", "Accounts/UserAccess.swift", "CoreServices.swift"]
        for (path, text) in try Self.sources(of: "SelfieCore") where text.contains("import PostgresNIO") {
            #expect(path.hasSuffix("Repository.swift") || allowed.contains { path.hasPrefix($0) || path == $0 }, "\(path) runs SQL outside a repository")
        }
    }

    @Test("transactions go through SelfieCore's `transaction`, never PostgresNIO's `withTransaction` (whose ROLLBACK on a cut connection waits for ever)")
    func oneTransactionHelper() throws {
        let files = try Self.sources(of: "SelfieCore") + Self.sources(of: "App")
        #expect(files.count > 100)
        for (path, text) in files { #expect(!text.contains(".withTransaction("), "\(path) calls withTransaction") }
    }
}

@Suite("One way in")
struct OneWayInTests {
    @Test("every way in goes through SignInService: sessions start only in WebSignIn, tokens only in the API, and no controller holds another")
    func signInHasOneDoor() throws {
        let files = try LayeringTests.sources(of: "App")
        for (path, text) in files {
            if text.contains("signIn.startSession(") { #expect(path.hasSuffix("Web/WebSignIn.swift"), "\(path) starts a session itself") }
            if text.contains("signIn.issueToken(") { #expect(path.hasPrefix("API/"), "\(path) issues a token outside the API") }
            let heldController = try Regex(#"(?m)^\s+let \w+: \w+(PagesController|Controller)\s*$"#)
            #expect(text.firstMatch(of: heldController) == nil, "\(path) holds another controller")
        }
        // The core's old doors are internal to it: the surfaces cannot reach them.
        let core = try LayeringTests.sources(of: "SelfieCore")
        let publicDoors = try Regex(#"public func (authenticate\(login|startSession\(for|issueToken\(for|completeSignIn\(|applyingRememberedBrowser\(|startPending\(|account\(for identity)"#)
        for (path, text) in core {
            #expect(text.firstMatch(of: publicDoors) == nil, "\(path) opens a way in outside SignInService")
        }
    }
}
