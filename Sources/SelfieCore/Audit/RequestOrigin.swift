/// Where a request came from, for the audit log.
public struct RequestOrigin: Sendable, Equatable {
    public let ipAddress: String
    public let userAgent: String

    public init(ipAddress: String, userAgent: String) {
        self.ipAddress = ipAddress
        self.userAgent = String(userAgent.prefix(512))
    }

    /// Actions taken with the `selfie` command on the server itself.
    public static let commandLine = RequestOrigin(ipAddress: "", userAgent: "selfie command line")

    /// Actions a periodic task takes by itself (the trash's purge).
    public static let periodicTask = RequestOrigin(ipAddress: "", userAgent: "selfie periodic task")
}
