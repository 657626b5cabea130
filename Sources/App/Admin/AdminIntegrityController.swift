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
        let checks = try await integrity.lastChecks().map { check in
            IntegrityPage.Check(
                title: check.kind == .full ? "Full check (selfie check)" : "Light check (every 6 hours)",
                finished: check.finishedAt.displayString,
                duration: String(format: "%.1f s", check.finishedAt.timeIntervalSince(check.startedAt)),
                summary: "\(check.photos) photo(s), \(check.blobs) blob(s) in the store, \(check.checksumsVerified) checksum(s) verified",
                isClean: check.findingCount == 0,
                findings: check.findings.map(IntegrityFindingText.describe),
                moreFindings: check.findingCount > check.findings.count ? "… and \(check.findingCount - check.findings.count) more: run `selfie check`." : nil
            )
        }
        let page = IntegrityPage(checks: checks, neverChecked: checks.isEmpty)
        return try pages.render(.adminIntegrity, title: "title-admin-integrity", page: page, context: context).response(from: request, context: context)
    }
}
