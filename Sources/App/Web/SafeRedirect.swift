/// Where a browser may be sent after signing in: only a path on this site. `//evil.example`,
/// `/\evil.example`, `https://…` and anything with control characters fall back to the default.
enum SafeRedirect {
    static func localPath(_ candidate: String?, default fallback: String = WebPath.gallery) -> String {
        guard let path = candidate, path.hasPrefix("/"), !path.hasPrefix("//"), !path.hasPrefix("/\\"),
            path.utf8.count <= 2048,
            !path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" })
        else { return fallback }
        return path
    }
}
