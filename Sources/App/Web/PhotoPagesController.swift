import Foundation
import Hummingbird
import Mustache
import SelfieCore

/// The gallery, the upload form, a photo's page and deleting it, in the browser.
struct PhotoPagesController {
    let photos: PhotoService
    let pages: PageRenderer
    let protection: BruteForceProtection
    static let pageSize = 24

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(RouterPath(WebPath.gallery), use: gallery)
        group.get(RouterPath(WebPath.newPhoto), use: newPhoto)
        group.limited(.upload, by: protection).post(RouterPath(WebPath.photos), use: upload)
        group.get(WebPath.photoPattern, use: show)
        group.get(WebPath.originalPattern, use: downloadOriginal)
        group.get(WebPath.deletePhotoPattern, use: confirmDelete)
        group.post(WebPath.deletePhotoPattern, use: delete)
    }

    /// A photo as pages show it: never its original, only renditions (upright, without metadata).
    /// A photo stored before renditions existed shows a placeholder until they are made.
    struct PhotoCard: Sendable {
        struct Image: Sendable {
            let url: String
            let width: Int
            let height: Int
        }

        let id: String
        let title: String
        let date: String
        let altText: String
        /// The grid's image (400 px) and the larger one for dense screens (800 px).
        let thumbnail: Image?
        let srcset: String?
        /// The photo page's image (≤ 2048 px).
        let display: Image?
        let isPreparing: Bool

        init(_ photo: Photo, photos: PhotoService) {
            self.id = photo.publicID
            self.title = photo.title
            self.date = photo.createdAt.displayString
            self.altText = photo.title.isEmpty ? "Selfie from \(photo.createdAt.displayString)" : photo.title
            func image(_ name: RenditionName) -> Image? {
                guard let rendition = photo.rendition(name), let url = photos.url(of: name, for: photo) else { return nil }
                return Image(url: url, width: rendition.width, height: rendition.height)
            }
            self.thumbnail = image(.thumbnail400)
            self.display = image(.display)
            let sizes = [image(.thumbnail400), image(.thumbnail800)].compactMap { $0 }
            self.srcset = sizes.isEmpty ? nil : sizes.map { "\($0.url) \($0.width)w" }.joined(separator: ", ")
            self.isPreparing = photo.renditions.isEmpty
        }
    }

    struct GalleryPage: Sendable {
        let firstName: String
        let photos: [PhotoCard]
        let isEmpty: Bool
        let olderPageURL: String?
        let isFirstPage: Bool
    }

    func gallery(_ request: Request, context: SignedInContext) async throws -> Response {
        let before = try request.queryInteger("before", in: 1...Int64.max)
        let (found, hasMore) = try await photos.page(for: context.user, before: before, size: Self.pageSize)
        let cards = found.map { PhotoCard($0, photos: photos) }
        let page = GalleryPage(
            firstName: context.user.fullName.split(separator: " ").first.map(String.init) ?? context.user.fullName,
            photos: cards,
            isEmpty: cards.isEmpty && before == nil,
            olderPageURL: hasMore ? found.last.map { WebPath.gallery(before: $0.id) } : nil,
            isFirstPage: before == nil
        )
        return try pages.render(.gallery, title: "Your gallery", page: page, context: context, notice: Notice.message(from: request))
            .response(from: request, context: context)
    }

    struct UploadPage: Sendable {
        let maxSize: String
        let maxBytes: Int
        var error: String?
    }

    func newPhoto(_ request: Request, context: SignedInContext) async throws -> Response {
        try renderUploadForm(error: nil, status: .ok, context: context).response(from: request, context: context)
    }

    func upload(_ request: Request, context: SignedInContext) async throws -> Response {
        do {
            _ = try await photos.upload(for: context.user, request: request, origin: context.origin(request))
            return .seeOther(WebPath.gallery(notice: .photoUploaded))
        } catch let error as PhotoError {
            let refusal = ErrorCopy.photoError(error)
            ErrorLogging.record(error, answer: refusal, request: request, logger: context.logger)
            var response = try renderUploadForm(error: refusal.message, status: refusal.status, context: context)
                .response(from: request, context: context)
            response.headers.append(contentsOf: refusal.headers)
            return response
        }
    }

    private func renderUploadForm(error: String?, status: HTTPResponse.Status, context: SignedInContext) throws -> HTML {
        let page = UploadPage(
            maxSize: ByteCountText.describe(photos.limits.maxBytes),
            maxBytes: photos.limits.maxBytes,
            error: error
        )
        return try pages.render(.upload, title: "Upload a selfie", page: page, context: context, status: status)
    }

    struct PhotoPage: Sendable {
        let photo: PhotoCard
    }

    func show(_ request: Request, context: SignedInContext) async throws -> Response {
        let photo = try await photos.photo(try context.parameters.require("id"), of: context.user)
        let title = photo.title.isEmpty ? "Photo" : photo.title
        return try pages.render(.photo, title: title, page: PhotoPage(photo: PhotoCard(photo, photos: photos)), context: context)
            .response(from: request, context: context)
    }

    func confirmDelete(_ request: Request, context: SignedInContext) async throws -> Response {
        let photo = try await photos.photo(try context.parameters.require("id"), of: context.user)
        return try pages.render(
            .photoDelete,
            title: "Delete this photo?",
            page: PhotoPage(photo: PhotoCard(photo, photos: photos)),
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
        return .seeOther(WebPath.gallery(notice: .photoDeleted))
    }
}

// Looked up by name rather than by reflection (see `PageRenderer.Page`): the gallery renders 24 cards.

extension PhotoPagesController.GalleryPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "firstName": firstName
        case "photos": photos
        case "isEmpty": isEmpty
        case "olderPageURL": olderPageURL
        case "isFirstPage": isFirstPage
        default: nil
        }
    }
}

extension PhotoPagesController.PhotoCard: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "id": id
        case "title": title
        case "date": date
        case "altText": altText
        case "thumbnail": thumbnail
        case "srcset": srcset
        case "display": display
        case "isPreparing": isPreparing
        default: nil
        }
    }
}

extension PhotoPagesController.PhotoCard.Image: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "url": url
        case "width": width
        case "height": height
        default: nil
        }
    }
}

extension PhotoPagesController.PhotoPage: MustacheParent {
    func child(named name: String) -> Any? {
        name == "photo" ? photo : nil
    }
}
