import SelfieCore

/// A short, human name for a browser from its User-Agent ("Firefox on Linux").
enum UserAgentSummary {
    static func describe(_ userAgent: String) -> String {
        guard !userAgent.isEmpty else { return "Unknown browser" }
        let family = UserAgentFamily(userAgent)
        switch (family.browser, family.system) {
        case let (browser?, system?): return "\(browser) on \(system)"
        case let (browser?, nil): return browser
        case let (nil, system?): return "Browser on \(system)"
        default: return String(userAgent.prefix(60))
        }
    }
}
