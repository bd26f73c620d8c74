import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the test origin has seen (scripts/test-origin.py, `/__stats`).
public struct OriginStats: Decodable, Sendable {
    public let requests: [String: Int]
    public let total: Int
    public let maxConcurrent: Int
    /// The headers of the last request seen for each path.
    public let headers: [String: [String: String]]
    /// Most requests in flight at once among those sent with `?group=G`.
    public let maxConcurrentByGroup: [String: Int]
    /// When each request for a path arrived (Unix seconds).
    public let times: [String: [Double]]

    enum CodingKeys: String, CodingKey {
        case requests, total, headers, times
        case maxConcurrentByGroup = "max_concurrent_by_group"
        case maxConcurrent = "max_concurrent"
    }

    public static func fetch(_ origin: String) throws -> OriginStats {
        let data = try Data(contentsOf: URL(string: origin + "/__stats")!)
        return try JSONDecoder().decode(OriginStats.self, from: data)
    }

    /// Clears the origin's counters (tests that use it must not run in parallel).
    public static func reset(_ origin: String) throws {
        _ = try Data(contentsOf: URL(string: origin + "/__reset")!)
    }

    /// Requests seen for one path, e.g. `/files/a.bin`.
    public func count(_ path: String) -> Int { requests[path] ?? 0 }

    /// Requests whose path starts with `prefix`.
    public func count(prefix: String) -> Int {
        requests.filter { $0.key.hasPrefix(prefix) }.values.reduce(0, +)
    }
}
