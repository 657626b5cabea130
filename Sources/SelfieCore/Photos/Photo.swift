import Foundation

/// A stored selfie. `publicID` names it to clients; `blobKey` names its bytes in the blob store.
public struct Photo: Sendable, Equatable {
    public let id: Int64
    public let publicID: String
    public let userID: Int64
    public let title: String
    public let blobKey: BlobKey
    public let contentType: String
    public let byteSize: Int64
    public let createdAt: Date
}
