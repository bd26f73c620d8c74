/// What came back from one transfer. `error` is set when the transfer itself failed
/// (no usable response); an HTTP error status is not an `error`.
public struct TransferResponse: Sendable {
    public var httpStatus: Int = 0
    public var bytes: Int = 0
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    /// Seconds the origin asked us to wait (`Retry-After`), when it said so.
    public var retryAfter: Double?
    /// The first `headLength` bytes of the body (fewer if it was shorter).
    public var head: [UInt8] = []
    /// Hex SHA-256 of the body, computed as it streamed in.
    public var sha256: String?
    /// The body itself when it is at most `memoryLimit` bytes; `nil` for larger ones.
    public var body: [UInt8]?
    public var error: TransferError?

    public static let headLength = 32
    /// Bodies up to this size are also kept in memory (64 transfers × 256 KiB = 16 MiB at most).
    public static let memoryLimit = 256 * 1024

    public init(httpStatus: Int = 0, bytes: Int = 0, error: TransferError? = nil) {
        self.httpStatus = httpStatus
        self.bytes = bytes
        self.error = error
    }
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

    public init(reason: Reason, message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }
}
