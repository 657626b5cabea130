/// Turns caller-supplied names into relative, forward-slash ZIP paths that cannot escape the
/// extraction folder: backslashes become separators, empty, "." and ".." segments are dropped
/// (so no leading "/"), control characters become "_".
///
/// This is a safety net, not a naming policy: callers should still build names from trusted parts
/// (e.g. "photos/2024-05-01 1234.jpg") and avoid characters Windows rejects (`<>:"|?*`).
enum EntryName {
    static func sanitise(_ name: String) -> String {
        let unified = name.replacingBackslashes()
        let segments = unified.split(separator: "/", omittingEmptySubsequences: true)
            .filter { $0 != "." && $0 != ".." }
            .map { segment in
                String(String.UnicodeScalarView(segment.unicodeScalars.map { scalar in
                    scalar.value < 0x20 || scalar.value == 0x7F ? "_" : scalar
                }))
            }
        return segments.joined(separator: "/")
    }
}

extension String {
    fileprivate func replacingBackslashes() -> String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0 == "\\" ? "/" : $0 }))
    }
}
