import Foundation
import Hummingbird
import SelfieCore

/// `/admin/integrity`: the last integrity checks — `selfie check` (every blob read) and the
/// periodic light one (the rows against the store, a sample of checksums) — and what they found.
struct AdminIntegrityController {
    let integrity: IntegrityChecker
    let pages: PageRenderer

    func addRoutes(to forms: RouterGroup<WebRequestContext>) {
        forms.group(RouterPath(AdminPath.prefix), context: AdminContext.self).get("integrity", use: show)
    }

    struct IntegrityPage: Sendable {
        struct Check: Sendable {
            let title: String
            let finished: String
            let duration: String
            let summary: String
            let isClean: Bool
            let findings: [String]
            let moreFindings: String?
        }

        let checks: [Check]
        let neverChecked: Bool
    }

    func show(_ request: Request, context: AdminContext) async throws -> Response {
        let words = pages.words(for: context)
        let checks = try await integrity.lastChecks().map { check in
            let seconds = words.language.formatDecimal(check.finishedAt.timeIntervalSince(check.startedAt))
            // Three counts, each a message with its plural: a list, not one sentence.
            let counts = [
                words("photo-count", ["count": .number(check.photos)]),
                words("admin-check-blobs", ["count": .number(check.blobs)]),
                words("admin-check-checksums", ["count": .number(check.checksumsVerified)]),
            ]
            return IntegrityPage.Check(
                title: words(check.kind == .full ? "admin-check-full" : "admin-check-light"),
                finished: words.time(check.finishedAt),
                duration: words("admin-check-seconds", ["seconds": .text(seconds)]),
                summary: counts.joined(separator: ", "),
                isClean: check.findingCount == 0,
                findings: check.findings.map { IntegrityFindingText.describe($0, words: words) },
                moreFindings: check.findingCount > check.findings.count
                    ? words("admin-integrity-more", ["count": .number(check.findingCount - check.findings.count)]) : nil
            )
        }
        let page = IntegrityPage(checks: checks, neverChecked: checks.isEmpty)
        return try pages.render(.adminIntegrity, title: "title-admin-integrity", page: page, context: context).response(from: request, context: context)
    }
}
