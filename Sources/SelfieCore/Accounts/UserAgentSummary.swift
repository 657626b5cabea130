/// A short, human name for a browser from its User-Agent ("Firefox on Linux").
public enum UserAgentSummary {
    public static func describe(_ userAgent: String) -> String {
        guard !userAgent.isEmpty else { return "Unknown browser" }
        let browsers = [("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"), ("Safari/", "Safari"), ("curl/", "curl")]
        let systems = [("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("Mac OS X", "macOS"), ("Windows", "Windows"), ("Linux", "Linux")]
        let browser = browsers.first { userAgent.contains($0.0) }?.1
        let system = systems.first { userAgent.contains($0.0) }?.1
        switch (browser, system) {
        case let (browser?, system?): return "\(browser) on \(system)"
        case let (browser?, nil): return browser
        case let (nil, system?): return "Browser on \(system)"
        default: return String(userAgent.prefix(60))
        }
    }
}
