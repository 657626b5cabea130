/// Cleaning of free text that goes into headers (subjects, display names).
enum HeaderText {
    /// Each run of control characters (CR, LF, tab, NUL, U+2028, …) becomes one space, so no
    /// caller-supplied text can start a new header line; leading and trailing spaces are dropped.
    static func sanitized(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var inControlRun = false
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator:
                if !inControlRun {
                    result.append(" ")
                }
                inControlRun = true
            default:
                result.append(scalar)
                inControlRun = false
            }
        }
        return String(result).trimmingSpaces()
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        let scalars = self.unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " }) else { return "" }
        let last = scalars.lastIndex(where: { $0 != " " })!
        return String(scalars[first...last])
    }
}
