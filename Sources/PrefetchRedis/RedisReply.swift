/// A RESP2 reply, copied out of hiredis's reply object.
public enum RedisReply: Sendable, Equatable {
    case string(String)
    case status(String)
    case integer(Int)
    case array([RedisReply])
    case null
    case error(String)

    public var string: String? {
        switch self {
        case .string(let s), .status(let s): s
        default: nil
        }
    }

    public var integer: Int? {
        if case .integer(let i) = self { return i }
        return nil
    }

    public var array: [RedisReply]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// Turns an error reply into a thrown error, so callers handle one path.
    public func check() throws(RedisError) -> RedisReply {
        if case .error(let message) = self { throw .server(message) }
        return self
    }
}
