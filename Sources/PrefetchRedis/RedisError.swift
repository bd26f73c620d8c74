/// Everything that can go wrong talking to Redis, as one typed error.
public enum RedisError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The URL could not be parsed.
    case invalidURL(String)
    /// The connection failed or broke (I/O error, EOF, timeout); it must be reopened.
    case connection(String)
    /// The server answered with an error reply (`-ERR ...`).
    case server(String)
    /// The reply did not have the shape the caller expected.
    case unexpectedReply(String)

    public var description: String {
        switch self {
        case .invalidURL(let m): "invalid Redis URL: \(m)"
        case .connection(let m): "Redis connection error: \(m)"
        case .server(let m): "Redis error: \(m)"
        case .unexpectedReply(let m): "unexpected Redis reply: \(m)"
        }
    }

    /// True when the connection is unusable or the server is briefly unavailable
    /// (still loading its dataset after a restart): reconnect and try again.
    public var isConnectionError: Bool {
        switch self {
        case .connection: return true
        case .server(let m): return m.hasPrefix("LOADING") || m.hasPrefix("MASTERDOWN") || m.hasPrefix("TRYAGAIN")
        default: return false
        }
    }
}
