/// One HTTP GET whose body streams into a file descriptor.
public struct TransferRequest: Sendable {
    /// The URL to fetch, credentials included if the job had them.
    public var url: String
    /// Extra request headers, `Name: value`.
    public var headers: [String]
    /// Where the body is written as it arrives. The downloader closes it when the transfer ends.
    public var fileDescriptor: Int32

    public init(url: String, headers: [String] = [], fileDescriptor: Int32) {
        self.url = url
        self.headers = headers
        self.fileDescriptor = fileDescriptor
    }
}

/// What came back. `error` is set when the transfer itself failed (no usable response).
public struct TransferResponse: Sendable {
    public var httpStatus: Int
    public var bytes: Int
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    /// The first `headLength` bytes of the body (fewer if it was shorter).
    public var head: [UInt8] = []
    public var error: TransferError?

    public static let headLength = 32
}

/// Why a transfer produced no usable body.
public struct TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case curl(code: Int, transient: Bool)
        case bodyTooLarge(limit: Int)
        case writeFailed(errno: Int32)
        /// The downloader was shut down before the transfer finished.
        case cancelled
    }

    public let reason: Reason
    public let message: String

    public var description: String { message }
}
