import SelfieCore

/// An integrity finding in words: in English for `selfie check` (a command's output, like its
/// other messages), in the admin's language on the integrity page.
public enum IntegrityFindingText {
    public static func describe(_ finding: IntegrityFinding) -> String {
        let photo = "photo \(finding.photo ?? "?") of \(finding.owner ?? "?") (blob \(finding.blob))"
        let what = finding.rendition.map { "rendition \($0)" } ?? "original"
        let problem = switch finding.kind {
        case .missingOriginal: "missing original: \(photo); restore it from a backup"
        case .missingRendition: "missing \(what): \(photo)"
        case .corrupt: "damaged \(what): \(photo): its bytes no longer match the SHA-256 recorded when it was stored"
        case .orphan: "unreferenced blob \(finding.blob): no photo row points to it"
        }
        guard finding.repaired else { return problem }
        return problem + (finding.kind == .orphan ? " (moved aside)" : " (renditions remade from the original)")
    }

    /// The admin page's finding, from the catalogue (`admin-finding-…`).
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
