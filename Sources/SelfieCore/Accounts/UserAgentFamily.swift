/// The kind of browser or app and the system a User-Agent names, as short codes ("Chrome",
/// "Linux"); nil where it names none. What a sign-in from "somewhere new" compares; the surfaces
/// word it for people (`UserAgentSummary`).
public struct UserAgentFamily: Sendable, Equatable {
    public let browser: String?
    public let system: String?

    public init(_ userAgent: String) {
        let browsers = [("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari"), ("curl/", "curl")]
        let systems = [("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("Mac OS X", "macOS"), ("Windows", "Windows"), ("Linux", "Linux")]
        browser = browsers.first { userAgent.contains($0.0) }?.1
        system = systems.first { userAgent.contains($0.0) }?.1
    }
}
