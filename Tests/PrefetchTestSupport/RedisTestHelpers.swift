import Foundation
import PrefetchRedis

extension RedisConnection {
    /// Runs a command and throws on an error reply.
    @discardableResult
    public func run(_ args: String...) throws -> RedisReply {
        try command(args).check()
    }

    public func int(_ args: String...) throws -> Int {
        guard let n = try command(args).check().integer else { throw RedisError.unexpectedReply("\(args) is not an integer") }
        return n
    }

    public func strings(_ args: String...) throws -> [String] {
        try command(args).check().array?.compactMap(\.string) ?? []
    }

    /// Event JSON documents in a stream, oldest first.
    public func streamEvents(_ key: String) throws -> [[String: Any]] {
        let entries = try command(["XRANGE", key, "-", "+"]).check().array ?? []
        return entries.compactMap { entry -> [String: Any]? in
            guard let fields = entry.array?.last?.array, fields.count == 2, let json = fields[1].string else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        }
    }
}
