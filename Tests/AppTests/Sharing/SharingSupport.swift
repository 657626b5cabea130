@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting

extension Browser {
    /// Uploads as the upload page's script does (`Accept: application/json`): the new photo's id.
    func uploadPhoto(_ image: [UInt8], title: String = "", filename: String = "selfie.jpg") async throws -> String {
        let token = try await csrfToken(on: "/photos/new")
        let (contentType, body) = MultipartBody.browser(image: image, title: title, filename: filename)
        let answer = try await send("/photos?_csrf=\(token)", method: .post, body: body, contentType: contentType, extraHeaders: [.accept: "application/json"])
        guard answer.status == .created, let id = try answer.json()["id"] as? String else {
            throw TestSetupError("upload refused: \(answer.status) \(answer.text)")
        }
        return id
    }

    /// Posts the gallery's (or an album's) selection bar.
    func select(_ photoIDs: [String], action: String, fields: [(String, String)] = [], from page: String = "/gallery") async throws -> TestResponse {
        try await submit("/photos/selection", from: page, photoIDs.map { ("photo", $0) } + [("action", action)] + fields)
    }

    /// Makes an album of the photos through the selection bar; its public id.
    func makeAlbum(_ title: String, of photoIDs: [String]) async throws -> String {
        let answer = try await select(photoIDs, action: "add", fields: [("target_album", ""), ("new_album_title", title)])
        guard let location = answer.location, let id = location.firstCapture(of: #"^/albums/([^?]+)\?notice=photos-added$"#) else {
            throw TestSetupError("no album made: \(answer.status) \(answer.text)")
        }
        return id
    }

    /// Makes a share link through the share form; its token (the page shows its address once).
    func makeLink(_ target: (name: String, id: String), expires: String? = "7", password: String? = nil, allowDownload: Bool = false)
        async throws -> String
    {
        let page = target.name == "album" ? "/albums/\(target.id)" : "/photos/\(target.id)"
        var fields = [(target.name, target.id)]
        if let expires { fields.append(("expires", expires)) }
        if let password { fields.append(("password", password)) }
        if allowDownload { fields.append(("allow_download", "on")) }
        let answer = try await submit("/links", from: page, fields)
        guard answer.status == .created, let token = answer.text.firstCapture(of: #"value="http://localhost/s/([A-Za-z0-9_-]{32})""#) else {
            throw TestSetupError("no link made: \(answer.status) \(answer.text)")
        }
        return token
    }

    /// The ids of the photos a grid page shows, in order.
    func gridIDs(_ path: String) async throws -> [String] {
        try await get(path).text.captures(of: #"<li class="photo-card">\s*<input type="checkbox" class="select-photo" name="photo" value="([^"]+)""#)
    }
}

extension String {
    /// The first group of every match of `pattern`, in order.
    func captures(of pattern: String) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern)
        return regex.matches(in: self, range: NSRange(startIndex..., in: self)).compactMap { match in
            Range(match.range(at: 1), in: self).map { String(self[$0]) }
        }
    }
}

/// The members of a ZIP as Python's zipfile reads them: name → SHA-256 (and whether every CRC checks).
func zipMembers(_ body: ByteBuffer) async throws -> (sha256: [String: String], intact: Bool) {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID()).zip")
    try Data(body.readableBytesView).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let script = """
        import hashlib, json, sys, zipfile
        with zipfile.ZipFile(sys.argv[1]) as archive:
            print(json.dumps({"sha256": {n: hashlib.sha256(archive.read(n)).hexdigest() for n in archive.namelist()},
                              "intact": archive.testzip() is None}))
        """
    struct Read: Decodable {
        let sha256: [String: String]
        let intact: Bool
    }
    let json = try await OffThread.run { try Tool.run("python3", ["-c", script, file.path]) }
    let read = try JSONDecoder().decode(Read.self, from: json)
    return (read.sha256, read.intact)
}
