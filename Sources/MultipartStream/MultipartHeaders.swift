/// Reading the header values that come with a multipart upload and with its parts.
public enum MultipartHeaders {
    /// The boundary in a `multipart/*` Content-Type value (`multipart/form-data; boundary=x`,
    /// quoted or not); nil for another media type or a missing or invalid boundary (see
    /// `MultipartStreamParser.init`).
    public static func boundary(fromContentType contentType: String) -> String? {
        let (mediaType, parameters) = HeaderValueParameters.split(contentType)
        guard mediaType.lowercased().hasPrefix("multipart/"),
            let boundary = HeaderValueParameters.first(named: "boundary", in: parameters),
            isValidBoundary(boundary)
        else { return nil }
        return boundary
    }

    /// A parameter of a header value such as Content-Disposition
    /// (`form-data; name="image"; filename="photo"` → `parameter("filename", …)` is `photo`),
    /// unquoted; nil if absent. Names match case-insensitively; `filename*` (RFC 8187) is a
    /// separate parameter, returned undecoded.
    public static func parameter(_ name: String, in headerValue: String) -> String? {
        HeaderValueParameters.first(named: name, in: HeaderValueParameters.split(headerValue).parameters)
    }

    /// The value of the first header called `name` (case-insensitive) in a part's headers.
    public static func value(of name: String, in headers: [(name: String, value: String)]) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// RFC 2046 allows 1–70 characters and no trailing space; any printable ASCII is taken here
    /// (clients stray from the RFC's list), which keeps CR out of the delimiter's tail.
    static func isValidBoundary(_ boundary: String) -> Bool {
        let bytes = Array(boundary.utf8)
        return (1...70).contains(bytes.count) && bytes.allSatisfy { (0x20...0x7E).contains($0) } && bytes.last != .space
    }
}

/// Splits `value; name=token; name="quoted"` header values.
enum HeaderValueParameters {
    static func split(_ headerValue: String) -> (value: String, parameters: [(name: String, value: String)]) {
        let bytes = Array(headerValue.utf8)
        var position = bytes.firstIndex(of: .semicolon) ?? bytes.endIndex
        let value = headerText(trimmingSpacesAndTabs(bytes[..<position]))
        var parameters: [(name: String, value: String)] = []
        while position < bytes.endIndex {
            position += 1  // past ";"
            let nameEnd = bytes[position...].firstIndex { $0 == .equals || $0 == .semicolon } ?? bytes.endIndex
            let name = headerText(trimmingSpacesAndTabs(bytes[position..<nameEnd]))
            position = nameEnd
            guard position < bytes.endIndex, bytes[position] == .equals else { continue }  // no value: skipped
            position += 1
            while position < bytes.endIndex, bytes[position] == .space || bytes[position] == .tab { position += 1 }
            var parameterValue: [UInt8] = []
            if position < bytes.endIndex, bytes[position] == .quote {
                position += 1
                while position < bytes.endIndex, bytes[position] != .quote {
                    // Only `\"` and `\\` are escapes: browsers send file names with literal
                    // backslashes (`C:\photos\me.jpg`) inside quotes.
                    if bytes[position] == .backslash, position + 1 < bytes.endIndex,
                        bytes[position + 1] == .quote || bytes[position + 1] == .backslash
                    {
                        position += 1
                    }
                    parameterValue.append(bytes[position])
                    position += 1
                }
                position = bytes[position...].firstIndex(of: .semicolon) ?? bytes.endIndex
            } else {
                let valueEnd = bytes[position...].firstIndex(of: .semicolon) ?? bytes.endIndex
                parameterValue = Array(trimmingSpacesAndTabs(bytes[position..<valueEnd]))
                position = valueEnd
            }
            if !name.isEmpty { parameters.append((name, headerText(parameterValue[...]))) }
        }
        return (value, parameters)
    }

    static func first(named name: String, in parameters: [(name: String, value: String)]) -> String? {
        let wanted = name.lowercased()
        return parameters.first { $0.name.lowercased() == wanted }?.value
    }


}
