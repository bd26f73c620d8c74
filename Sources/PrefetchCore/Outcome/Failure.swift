/// Why a job did not complete, and whether trying again could help.
public struct Failure: Error, Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Retrying could succeed: timeouts, refused connections, DNS, 408/429/5xx.
        case transient
        /// Retrying will not help: other 4xx, limits exceeded, bad content.
        case permanent
    }

    public let kind: Kind
    /// Human-readable reason, safe to publish (never contains credentials).
    public let reason: String
    /// The HTTP status, when the origin answered.
    public let httpStatus: Int?
    /// Seconds the origin asked us to wait before trying again (`Retry-After`).
    public let retryAfter: Double?

    public init(kind: Kind, reason: String, httpStatus: Int? = nil, retryAfter: Double? = nil) {
        self.kind = kind
        self.reason = reason
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
    }

    /// Classifies an HTTP status that is not a success. One place decides; see docs/protocol.md.
    public static func http(status: Int, retryAfter: Double? = nil) -> Failure {
        let transient = status == 408 || status == 429 || (500...599).contains(status)
        // Retry-After only means something on 429 and 503.
        let wait = (status == 429 || status == 503) ? retryAfter : nil
        return Failure(kind: transient ? .transient : .permanent, reason: "HTTP \(status)", httpStatus: status, retryAfter: wait)
    }
}
