/// Why a photo operation was refused. The surfaces turn each into a status and words.
public enum PhotoError: Error, Equatable, Sendable {
    /// The upload is not `multipart/form-data` with a boundary.
    case notMultipart
    /// The multipart body could not be parsed (or ended early).
    case malformed
    /// No `image` part, or an empty one.
    case missingImage
    case severalImages
    /// Two `title` parts: which one is the caption?
    case severalTitles
    /// The bytes are not one of the accepted image formats (by their content, not their name).
    case notAnImage
    /// It looks like an image but cannot be made into one to show (damaged, cut short, too many
    /// pixels, an absurd shape).
    case unprocessable(ImageProblem)
    case tooLarge(maxBytes: Int)
    /// Storing it would take the user past their quota (originals, renditions and the trash
    /// count); `availableBytes` is what was left.
    case overQuota(quotaBytes: Int64, availableBytes: Int64)
    case titleTooLong(maxCharacters: Int)
    case titleHasControlCharacters
    /// No such photo among the user's (other users' photos are "not found" too).
    case notFound
    /// Too many uploads in progress, for this user or for this server.
    case tooManyUploadsInProgress
    /// The upload did not arrive within the time allowed for one.
    case timedOut
    /// No image worker could process it just now (killed, timed out, or not started): not the
    /// photo's fault, worth trying again.
    case processingUnavailable
}
