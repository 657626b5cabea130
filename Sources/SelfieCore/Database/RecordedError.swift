/// What a failure said, as a row records it (the `last_error` columns): at most 500 characters,
/// control characters (`isControlCharacter`) as spaces. A peer's own words (an SMTP server's reply, an object store's
/// error) are quoted in these messages, and a NUL among them would make PostgreSQL refuse the
/// very statement that records the failure — the attempt then counted nowhere, and came again.
enum RecordedError {
    static func text(_ error: String) -> String {
        String(String.UnicodeScalarView(error.unicodeScalars.prefix(500).map { $0.isControlCharacter ? " " : $0 }))
    }
}
