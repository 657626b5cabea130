import Hummingbird
import HummingbirdCore
import SelfieCore

extension Request {
    /// The path as log lines write it (`URI.loggedPath`).
    var loggedPath: String { uri.loggedPath }
}

extension URI {
    /// The path as log lines write it: a share link's token (`/s/<token>/…`), which opens the
    /// link to whoever reads it, becomes `<token>`; past `loggedPathLength` characters it is cut
    /// and ends in `…` (a request line may be 80 KB). Query values never reach a log at all.
    var loggedPath: String {
        let prefix = ShareLinkService.path + "/"
        guard path.hasPrefix(prefix) else { return Self.shortened(path) }
        let rest = path.dropFirst(prefix.count)
        let tail = rest.firstIndex(of: "/").map { rest[$0...] } ?? ""
        return Self.shortened(prefix + "<token>" + tail)
    }

    static let loggedPathLength = 256

    private static func shortened(_ path: String) -> String {
        path.count > loggedPathLength ? path.prefix(loggedPathLength) + "…" : path
    }
}
