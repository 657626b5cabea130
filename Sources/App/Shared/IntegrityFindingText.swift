import SelfieCore

/// An integrity finding in words, from the catalogue (`admin-finding-…`): in the admin's language
/// on the integrity page, in English for `selfie check` (a command's output, like its other messages).
public enum IntegrityFindingText {
    /// `selfie check`'s lines: the integrity page's words, in English.
    public static func english(_ findings: [IntegrityFinding], paths: ResourcePaths = ResourcePaths()) throws -> [String] {
        let words = Words(translations: try Translations(directory: paths.locales), viewer: .default)
        return findings.map { describe($0, words: words) }
    }

    static func describe(_ finding: IntegrityFinding, words: Words) -> String {
        let photo = words("admin-finding-photo", [
            "photo": .text(finding.photo ?? "?"), "owner": .text(finding.owner ?? "?"), "blob": .text(finding.blob),
        ])
        let problem = switch (finding.kind, finding.rendition) {
        case (.missingOriginal, _), (.missingRendition, nil): words("admin-finding-missing-original", ["photo": .text(photo)])
        case (.missingRendition, let rendition?): words("admin-finding-missing-rendition", ["rendition": .text(rendition), "photo": .text(photo)])
        case (.corrupt, nil): words("admin-finding-corrupt-original", ["photo": .text(photo)])
        case (.corrupt, let rendition?): words("admin-finding-corrupt-rendition", ["rendition": .text(rendition), "photo": .text(photo)])
        case (.orphan, _): words("admin-finding-orphan", ["blob": .text(finding.blob)])
        }
        guard finding.repaired else { return problem }
        return words(finding.kind == .orphan ? "admin-finding-moved-aside" : "admin-finding-remade", ["finding": .text(problem)])
    }
}
