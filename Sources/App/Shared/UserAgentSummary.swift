import SelfieCore

/// A short, human name for a browser from its User-Agent ("Firefox on Linux").
enum UserAgentSummary {
    /// In the page's language ("Firefox unter Linux"); product names stay as they are.
    static func describe(_ userAgent: String, words: Words) -> String {
        guard !userAgent.isEmpty else { return words("device-unknown") }
        let family = UserAgentFamily(userAgent)
        switch (family.browser, family.system) {
        case let (browser?, system?): return words("device-browser-on-system", ["browser": .text(browser), "system": .text(system)])
        case let (browser?, nil): return browser
        case let (nil, system?): return words("device-system-only", ["system": .text(system)])
        default: return String(userAgent.prefix(60))
        }
    }

    /// In English, for what is stored (a new passkey's name) and the audit log.
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
