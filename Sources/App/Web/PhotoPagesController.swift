import Foundation
import Hummingbird
import SelfieCore

/// The gallery, the upload form, a photo's page and deleting it, and what the selection bar does
/// with many photos at once, in the browser.
struct PhotoPagesController {
    let photos: PhotoService
    let albums: AlbumService
    let pages: PageRenderer
    let protection: BruteForceProtection
    static let pageSize = 24

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(RouterPath(WebPath.gallery), use: gallery)
        group.get(RouterPath(WebPath.newPhoto), use: newPhoto)
        group.limited(.upload, by: protection).post(RouterPath(WebPath.photos), use: upload)
        group.post(RouterPath(WebPath.photoSelection), use: selection)
        group.post(RouterPath(WebPath.deleteSelection), use: deleteSelection)
        group.get(WebPath.photoPattern, use: show)
        group.get(WebPath.originalPattern, use: downloadOriginal)
        group.get(WebPath.deletePhotoPattern, use: confirmDelete)
        group.post(WebPath.deletePhotoPattern, use: delete)
    }

    struct GalleryPage: Sendable {
        let firstName: String
        let months: [MonthGroup]
        let isEmpty: Bool
        let olderPageURL: String?
        let isFirstPage: Bool
        let selection: SelectionBar
    }

    func gallery(_ request: Request, context: SignedInContext) async throws -> Response {
        let after = try request.queryPosition("after")
        let (found, hasMore) = try await photos.page(for: context.user, after: after, size: Self.pageSize)
        let page = GalleryPage(
            firstName: context.user.fullName.split(separator: " ").first.map(String.init) ?? context.user.fullName,
            months: MonthGroup.grouping(found, words: pages.words(for: context)) { PhotoCard($0, photos: photos, words: pages.words(for: context)) },
            isEmpty: found.isEmpty && after == nil,
            olderPageURL: hasMore ? found.last.map { WebPath.gallery(after: $0.position) } : nil,
            isFirstPage: after == nil,
            selection: try await SelectionBar.load(for: context.user, album: nil, albums: albums)
        )
        return try pages.render(.gallery, title: "title-gallery", page: page, context: context, notice: Notice.message(from: request))
            .response(from: request, context: context)
    }

    struct UploadPage: Sendable {
        let maxSize: String
        let maxBytes: Int
        var error: String?
    }

    func newPhoto(_ request: Request, context: SignedInContext) async throws -> Response {
        try renderUploadForm(error: nil, status: .ok, context: context, notice: Notice.message(from: request))
            .response(from: request, context: context)
    }

    /// The upload form's target. The page's script uploads each file on its own and asks for JSON
    /// (`Accept: application/json`): `201 {"id","url"}`, or the refusal's status with
    /// `{"status","message"}`; without the script, the gallery or the form with its error.
    func upload(_ request: Request, context: SignedInContext) async throws -> Response {
        let wantsJSON = request.headers[.accept]?.contains("application/json") ?? false
        do {
            let photo = try await photos.upload(for: context.user, request: request, origin: context.origin(request))
            guard wantsJSON else { return .seeOther(WebPath.gallery(notice: .photoUploaded)) }
            return try JSONResponse(status: .created, body: UploadedJSON(id: photo.publicID, url: WebPath.photo(photo.publicID)))
                .response(from: request, context: context)
        } catch let error as PhotoError {
            let refusal = ErrorCopy(words: pages.words(for: context)).photoError(error)
            ErrorLogging.record(error, answer: refusal, request: request, logger: context.logger)
            if wantsJSON {
                var response = APIErrorBody(status: refusal.status, message: refusal.message).response()
                response.headers.append(contentsOf: refusal.headers)
                return response
            }
            var response = try renderUploadForm(error: refusal.message, status: refusal.status, context: context)
                .response(from: request, context: context)
            response.headers.append(contentsOf: refusal.headers)
            return response
        }
    }

    struct UploadedJSON: Encodable, Sendable {
        let id: String
        let url: String
    }

    private func renderUploadForm(error: String?, status: HTTPResponse.Status, context: SignedInContext, notice: LocalizedText? = nil) throws -> HTML {
        let page = UploadPage(
            maxSize: ByteCountText.describe(photos.limits.maxBytes),
            maxBytes: photos.limits.maxBytes,
            error: error
        )
        return try pages.render(.upload, title: "title-upload", page: page, context: context, notice: notice, status: status)
    }

    struct PhotoPage: Sendable {
        struct AlbumLink: Sendable {
            let title: String
            let href: String
            /// "Back to your gallery" rather than to an album.
            var isGallery = false
        }

        let photo: PhotoCard
        let newerURL: String?
        let olderURL: String?
        /// The album the viewer moves through (from `?album=`), else the gallery.
        let context: AlbumLink
        let albums: [AlbumLink]
        let share: ShareForm
        let isInAlbums: Bool
    }

    /// The photo's page: the display copy sized to the screen, previous and next in the gallery
    /// (or in the album it was opened from), the albums that hold it, and sharing it.
    func show(_ request: Request, context: SignedInContext) async throws -> Response {
        let photo = try await photos.photo(try context.parameters.require("id"), of: context.user)
        var album: Album?
        if let albumID = request.uri.queryParameters["album"].map(String.init) {
            album = try await albums.album(albumID, of: context.user)
        }
        let (newer, older) = try await photos.neighbours(of: photo, album: album?.id)
        let holding = try await albums.albums(holding: photo)
        let page = PhotoPage(
            photo: PhotoCard(photo, photos: photos, words: pages.words(for: context)),
            newerURL: newer.map { WebPath.photo($0, inAlbum: album?.publicID) },
            olderURL: older.map { WebPath.photo($0, inAlbum: album?.publicID) },
            context: album.map { PhotoPage.AlbumLink(title: $0.title, href: WebPath.album($0.publicID)) }
                ?? PhotoPage.AlbumLink(title: "", href: WebPath.gallery, isGallery: true),
            albums: holding.map { PhotoPage.AlbumLink(title: $0.title, href: WebPath.album($0.publicID)) },
            share: ShareForm(photo: photo.publicID, words: pages.words(for: context)),
            isInAlbums: !holding.isEmpty
        )
        let title: LocalizedText = photo.title.isEmpty ? "title-photo" : .verbatim(photo.title)
        return try pages.render(.photo, title: title, page: page, context: context).response(from: request, context: context)
    }

    struct DeletePage: Sendable {
        let photo: PhotoCard
        /// Days it would stay in the trash; 0: gone at once.
        let trashDays: Int
        let hasTrash: Bool
    }

    func confirmDelete(_ request: Request, context: SignedInContext) async throws -> Response {
        let photo = try await photos.photo(try context.parameters.require("id"), of: context.user)
        return try pages.render(
            .photoDelete,
            title: "title-delete-photo",
            page: DeletePage(photo: PhotoCard(photo, photos: photos, words: pages.words(for: context)), trashDays: photos.trashDays, hasTrash: photos.trashDays > 0),
            context: context
        ).response(from: request, context: context)
    }

    /// The original, as uploaded (metadata and all), to its owner only: a download, never an image
    /// that a page embeds.
    func downloadOriginal(_ request: Request, context: SignedInContext) async throws -> Response {
        let (photo, content) = try await photos.original(try context.parameters.require("id"), of: context.user)
        let fileExtension = photo.blobKey.value.split(separator: ".").last.map(String.init) ?? "jpg"
        return Response(
            status: .ok,
            headers: [
                .contentType: content.contentType,
                .contentLength: String(content.totalSize),
                .contentDisposition: "attachment; filename=\"selfie-\(photo.publicID).\(fileExtension)\"",
                .cacheControl: "private, no-store",
            ],
            body: ResponseBody(content.body, contentLength: content.totalSize)
        )
    }

    func delete(_ request: Request, context: SignedInContext) async throws -> Response {
        try await photos.delete(
            try context.parameters.require("id"),
            of: context.user,
            origin: context.origin(request)
        )
        return .seeOther(WebPath.gallery(notice: photos.trashDays > 0 ? .photoTrashed : .photoDeleted))
    }
}

extension PhotoPagesController {
    /// What the selection bar posts: the checked photos (`photo`, repeated), the button pressed
    /// (`action`), the album to add them to (`target_album`, or a new one named `new_album_title`)
    /// and, on an album's page, that album (`album`).
    struct SelectionForm {
        let photoIDs: [String]
        let action: String
        let targetAlbum: String
        let newAlbumTitle: String
        let album: String?

        init(_ request: Request) async throws {
            var request = request
            let body = try await request.collectBody(upTo: CSRFMiddleware.maximumFormBytes)
            let pairs = URLEncodedForm.pairs(in: String(buffer: body))
            func value(_ name: String) -> String { pairs.first { $0.name == name }?.value ?? "" }
            photoIDs = pairs.filter { $0.name == "photo" }.map { $0.value }
            action = value("action")
            targetAlbum = value("target_album")
            newAlbumTitle = value("new_album_title")
            album = value("album").isEmpty ? nil : value("album")
            guard !photoIDs.isEmpty else { throw AlbumError.noPhotos }
        }
    }

    /// Adds the selection to an album (a new one, if so chosen), takes it out of this album, makes
    /// it the cover, downloads its originals, or asks to confirm deleting it.
    func selection(_ request: Request, context: SignedInContext) async throws -> Response {
        let form = try await SelectionForm(request)
        let user = context.user
        switch form.action {
        case "add":
            var target = form.targetAlbum
            if target.isEmpty {
                guard !form.newAlbumTitle.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw Refusal(.unprocessableContent, "error-selection-album-name")
                }
                target = try await albums.create(for: user, title: form.newAlbumTitle, with: form.photoIDs).publicID
            } else {
                try await albums.add(form.photoIDs, to: target, of: user)
            }
            return .seeOther(WebPath.album(target, notice: .photosAdded))
        case "remove":
            guard let album = form.album else { throw Refusal(.badRequest, "error-selection-remove-needs-album") }
            try await albums.remove(form.photoIDs, from: album, of: user)
            return .seeOther(WebPath.album(album, notice: .photosRemoved))
        case "cover":
            guard let album = form.album else { throw Refusal(.badRequest, "error-selection-cover-needs-album") }
            guard form.photoIDs.count == 1 else { throw Refusal(.unprocessableContent, "error-selection-one-cover") }
            try await albums.setCover(form.photoIDs[0], of: album, of: user)
            return .seeOther(WebPath.album(album, notice: .coverChosen))
        case "download":
            try AlbumService.checkCount(form.photoIDs)
            return try await .download(for: request, filename: "selfie-\(form.photoIDs.count)-photos.zip", contentType: "application/zip") {
                try await photos.originalsArchive(form.photoIDs, of: user)
            }
        case "delete":
            try AlbumService.checkCount(form.photoIDs)
            let chosen = try await photos.photos(form.photoIDs, of: user)
            let words = pages.words(for: context)
            var page = DeleteSelectionPage(
                photos: chosen.map { PhotoCard($0, photos: photos, words: words) }, count: chosen.count, album: form.album,
                trashDays: photos.trashDays, hasTrash: photos.trashDays > 0
            )
            page.heading = words("title-delete-photos", ["count": .number(chosen.count)])
            page.confirmLabel = words("photos-delete-yes", ["count": .number(chosen.count)])
            return try pages.render(.photosDelete, title: .message("title-delete-photos", ["count": .number(chosen.count)]), page: page, context: context)
                .response(from: request, context: context)
        default:
            throw Refusal(.badRequest, "error-selection-action")
        }
    }

    struct DeleteSelectionPage: Sendable {
        let photos: [PhotoCard]
        let count: Int
        let album: String?
        let trashDays: Int
        let hasTrash: Bool
        /// "Delete these 3 photos?" and its button, in the viewer's language.
        var heading = ""
        var confirmLabel = ""
    }

    /// Deletes the confirmed selection, then returns to where it was made.
    func deleteSelection(_ request: Request, context: SignedInContext) async throws -> Response {
        let form = try await SelectionForm(request)
        try AlbumService.checkCount(form.photoIDs)
        _ = try await photos.delete(form.photoIDs, of: context.user, origin: context.origin(request))
        let notice: Notice = photos.trashDays > 0 ? .photosTrashed : .photosDeleted
        if let album = form.album { return .seeOther(WebPath.album(album, notice: notice)) }
        return .seeOther(WebPath.gallery(notice: notice))
    }
}

// Looked up by name rather than by reflection (see `PageRenderer.Page`): the gallery renders 24 cards.

extension PhotoPagesController.GalleryPage: TemplateValues {
    func value(named name: String) -> TemplateValue? {
        switch name {
        case "firstName": firstName.templateValue
        case "months": months.templateValue
        case "isEmpty": isEmpty.templateValue
        case "olderPageURL": olderPageURL.templateValue
        case "isFirstPage": isFirstPage.templateValue
        case "selection": selection.templateValue
        default: nil
        }
    }
}
