import MultipartStream
import Testing

@Suite("header values")
struct MultipartHeadersTests {
    @Test("the boundary from a Content-Type value, quoted or not", arguments: [
        ("multipart/form-data; boundary=---------------------------14737809831466499882746641449",
         "---------------------------14737809831466499882746641449"),
        ("multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW", "----WebKitFormBoundary7MA4YWxkTrZu0gW"),
        ("multipart/form-data; boundary=\"simple boundary\"", "simple boundary"),
        ("Multipart/Form-Data;boundary=abc;charset=utf-8", "abc"),
        ("multipart/form-data; charset=utf-8; BOUNDARY = \"a;b\"", "a;b"),
        ("multipart/mixed; boundary=xyz", "xyz"),
        ("multipart/form-data; boundary=\(String(repeating: "7", count: 70))", String(repeating: "7", count: 70)),
    ])
    func boundary(contentType: String, boundary: String) {
        #expect(MultipartHeaders.boundary(fromContentType: contentType) == boundary)
    }

    @Test("no boundary from another type, a missing one, or one outside 1–70 characters", arguments: [
        "application/json; boundary=abc",
        "multipart/form-data",
        "multipart/form-data; boundary=",
        "multipart/form-data; boundary=\"\"",
        "multipart/form-data; boundary=\(String(repeating: "7", count: 71))",
        "multipart/form-data; xboundary=abc",
    ])
    func noBoundary(contentType: String) {
        #expect(MultipartHeaders.boundary(fromContentType: contentType) == nil)
    }

    @Test("name and filename from Content-Disposition values", arguments: [
        ("attachment; name=\"image\"; filename=\"photo\"", "image", "photo"),
        ("form-data; name=\"image\"; filename=\"selfie.jpg\"", "image", "selfie.jpg"),
        ("form-data; NAME=title", "title", nil),
        ("form-data; filename=\"x.jpg\"", nil, "x.jpg"),
        ("form-data; name=\"a;b\"; filename=\"semi;colon.jpg\"", "a;b", "semi;colon.jpg"),
        ("form-data; name=\"say \\\"hi\\\"\"; filename=\"C:\\photos\\me.jpg\"", "say \"hi\"", "C:\\photos\\me.jpg"),
        ("form-data; name=\"f\"; filename=\"café ☕️.jpg\"", "f", "café ☕️.jpg"),
        ("form-data; name=\"f\"; filename*=UTF-8''caf%C3%A9.jpg", "f", nil),
        ("form-data ;  name = \"spaced\" ; filename=\"\"", "spaced", ""),
    ] as [(String, String?, String?)])
    func dispositionParameters(value: String, name: String?, filename: String?) {
        #expect(MultipartHeaders.parameter("name", in: value) == name)
        #expect(MultipartHeaders.parameter("filename", in: value) == filename)
    }

    @Test("filename* is its own parameter, returned as sent")
    func extendedFilename() {
        let value = "form-data; name=\"f\"; filename*=UTF-8''caf%C3%A9.jpg"
        #expect(MultipartHeaders.parameter("filename*", in: value) == "UTF-8''caf%C3%A9.jpg")
    }

    @Test("a part header by name, case-insensitively")
    func headerLookup() {
        let headers = [(name: "content-disposition", value: "form-data; name=\"a\""), (name: "Content-Type", value: "image/png")]
        #expect(MultipartHeaders.value(of: "Content-Disposition", in: headers) == "form-data; name=\"a\"")
        #expect(MultipartHeaders.value(of: "CONTENT-TYPE", in: headers) == "image/png")
        #expect(MultipartHeaders.value(of: "Content-Length", in: headers) == nil)
    }
}
