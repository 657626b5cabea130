import Hummingbird
import SelfieCore

/// The admin pages' addresses: route patterns (relative to `/admin`) and the links to them.
enum AdminPath {
    static let prefix = "/admin"
    static let dashboard = prefix
    static let users = "\(prefix)/users"
    static let apiKeys = "\(prefix)/api-keys"
    static let audit = "\(prefix)/audit"
    static let mail = "\(prefix)/mail"

    enum Pattern {
        static let dashboard: RouterPath = ""
        static let users: RouterPath = "users"
        static let user: RouterPath = "users/:id"
        static let userAction: RouterPath = "users/:id/:action"
        /// A constant segment: the router prefers it to `:action`.
        static let quota: RouterPath = "users/:id/quota"
        static let apiKeys: RouterPath = "api-keys"
        static let revokeAPIKey: RouterPath = "api-keys/:name/revoke"
        static let audit: RouterPath = "audit"
        static let mail: RouterPath = "mail"
    }

    static func user(_ id: Int64) -> String { "\(users)/\(id)" }
    static func user(_ id: Int64, notice: Notice) -> String { "\(user(id))?notice=\(notice.rawValue)" }
    static func userAction(_ action: AdminService.UserAction, on id: Int64) -> String { "\(user(id))/\(action.rawValue)" }
    static func quota(of id: Int64) -> String { "\(user(id))/quota" }
    static func users(notice: Notice) -> String { "\(users)?notice=\(notice.rawValue)" }
    static func revokeAPIKey(_ name: String) -> String { "\(apiKeys)/\(PercentEncoding.encode(name))/revoke" }
    static func apiKeys(notice: Notice) -> String { "\(apiKeys)?notice=\(notice.rawValue)" }

    /// `path?name=value&…`, percent-encoded, parameters in name order.
    static func link(_ path: String, _ parameters: [String: String]) -> String {
        path + "?" + PercentEncoding.query(parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }
}
