import Foundation
import Hummingbird
import SelfieCore

/// The trash in the browser: what was deleted in the last `TRASH_DAYS`, to restore or to delete
/// for good (some, or all).
struct TrashPagesController {
    let photos: PhotoService
    let pages: PageRenderer

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(RouterPath(WebPath.trash), use: show)
        group.post(RouterPath(WebPath.trash), use: act)
        group.post(RouterPath(WebPath.emptyTrash), use: empty)
        group.post(RouterPath(WebPath.restoreAll), use: restoreAll)
    }

    struct TrashPage: Sendable {
        struct Item: Sendable {
            let card: PhotoCard
            let deletedOn: String
            /// nil with the trash turned off (nothing is purged).
            let purgedOn: String?
        }

        let items: [Item]
        /// "The 500 most recently deleted of 10,000": the page shows what a selection may name.
        let shownOfTotal: String?
        let isEmpty: Bool
        let trashDays: Int
        let hasTrash: Bool
    }

    func show(_ request: Request, context: SignedInContext) async throws -> Response {
        let (trashed, total) = try await photos.trashPage(of: context.user)
        let words = pages.words(for: context)
        let page = TrashPage(
            items: trashed.map { photo in
                TrashPage.Item(
                    card: PhotoCard(photo, photos: photos, words: pages.words(for: context)),
                    deletedOn: photo.trashedAt.map(pages.words(for: context).time) ?? "",
                    purgedOn: photos.purgeDate(of: photo).map(words.time)
                )
            },
            shownOfTotal: total > trashed.count
                ? words("trash-showing-latest", ["shown": .text("\(trashed.count)"), "total": .text("\(total)")]) : nil,
            isEmpty: trashed.isEmpty,
            trashDays: photos.trashDays,
            hasTrash: photos.trashDays > 0
        )
        return try pages.render(.trash, title: "title-trash", page: page, context: context, notice: Notice.message(from: request))
            .response(from: request, context: context)
    }

    /// Restores the selected photos, or deletes them for good.
    func act(_ request: Request, context: SignedInContext) async throws -> Response {
        let form = try await PhotoPagesController.SelectionForm(request)
        try AlbumService.checkCount(form.photoIDs)
        switch form.action {
        case "restore":
            let restored = try await photos.restore(form.photoIDs, of: context.user, origin: context.origin(request))
            return .seeOther(WebPath.trash(notice: restored == Set(form.photoIDs).count ? .photosRestored : .photosNotRestored))
        case "delete":
            _ = try await photos.deleteForever(form.photoIDs, of: context.user, origin: context.origin(request))
            return .seeOther(WebPath.trash(notice: .trashEmptied))
        default:
            throw Refusal(.badRequest, "error-trash-action")
        }
    }

    /// Everything in the trash back where it was (more than a selection may name).
    func restoreAll(_ request: Request, context: SignedInContext) async throws -> Response {
        _ = try await photos.restore(nil, of: context.user, origin: context.origin(request))
        // What is left was past its time (the purge takes it within the hour).
        let left = try await photos.usage(of: context.user).trashedPhotos
        return .seeOther(WebPath.trash(notice: left == 0 ? .photosRestored : .photosNotRestored))
    }

    func empty(_ request: Request, context: SignedInContext) async throws -> Response {
        _ = try await photos.deleteForever(nil, of: context.user, origin: context.origin(request))
        return .seeOther(WebPath.trash(notice: .trashEmptied))
    }
}
