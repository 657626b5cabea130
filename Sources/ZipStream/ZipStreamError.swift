/// Why the ZIP writer refused a call. The archive bytes produced so far are untouched by a refused call.
public enum ZipStreamError: Error, Sendable, Equatable {
    /// Nothing usable was left of the name after sanitising (e.g. "", "/", "../..").
    case invalidName(String)
    /// The UTF-8 name is longer than the 65 535 bytes a ZIP header can hold.
    case nameTooLong(String)
    /// Another entry already has this (sanitised) name.
    case duplicateName(String)
    /// `beginEntry` was called before the previous entry was ended.
    case entryAlreadyOpen
    /// Data or `endEntry` without an open entry.
    case noOpenEntry
    /// `finish` was called while an entry was still open.
    case entryStillOpen
    /// The archive was already finished.
    case archiveFinished
    /// The entry's byte count differs from the size declared in `beginEntry`.
    case sizeMismatch(name: String, declared: UInt64, actual: UInt64)
}
