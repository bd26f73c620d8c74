import Foundation
import PrefetchCore

/// A connection that reopens itself. `run` retries its body with exponential backoff
/// (0.1 s doubling to 5 s) for as long as the failure is a broken connection, so a Redis
/// restart or a network cut delays work instead of losing it. Owned by one thread.
public final class ReconnectingRedis {
    public let url: RedisURL
    public let role: String
    private let timeout: Double
    private var connection: RedisConnection?
    /// Consulted between attempts; when it returns true, `run` gives up and rethrows.
    private let shouldStop: () -> Bool

    public init(url: RedisURL, role: String, timeout: Double = 5, shouldStop: @escaping () -> Bool = { false }) {
        self.url = url
        self.role = role
        self.timeout = timeout
        self.shouldStop = shouldStop
    }

    /// The socket of the current connection, if any (for a fast stop with `shutdown(2)`).
    public var fileDescriptor: Int32? { connection?.fileDescriptor }

    public func run<T>(_ body: (RedisConnection) throws(RedisError) -> T) throws(RedisError) -> T {
        var delay = 0.1
        var reported = false
        while true {
            do {
                let conn = try connected()
                let result = try body(conn)
                if reported { Log.info("\(role): Redis connection restored (\(url))") }
                return result
            } catch where error.isConnectionError {
                connection = nil
                if shouldStop() { throw error }
                if !reported { Log.warning("\(role): \(error); reconnecting with backoff") }
                reported = true
                Thread.sleep(forTimeInterval: delay)
                delay = min(delay * 2, 5)
            }
        }
    }

    private func connected() throws(RedisError) -> RedisConnection {
        if let connection { return connection }
        let fresh = try RedisConnection(url: url, timeout: timeout)
        connection = fresh
        return fresh
    }
}
