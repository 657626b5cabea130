import SelfieCore

/// An integrity finding in words, for `selfie check` and the admin's integrity page.
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
}
