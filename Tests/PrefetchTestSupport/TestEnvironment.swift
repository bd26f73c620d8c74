import Foundation
import PrefetchCore
import PrefetchRedis

/// The servers integration tests run against, started by `scripts/test.sh`:
///
///     PREFETCH_TEST_REDIS_URL     a redis-server of the tests' own
///     PREFETCH_TEST_ORIGIN        base URL of scripts/test-origin.py
///     PREFETCH_TEST_ORIGIN_ROOT   the directory that origin serves under /files/
public struct TestEnvironment: Sendable {
    public let redisURL: RedisURL
    public let origin: String
    public let originRoot: String

    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    public static func current() throws -> TestEnvironment {
        let env = ProcessInfo.processInfo.environment
        guard let redis = env["PREFETCH_TEST_REDIS_URL"], let origin = env["PREFETCH_TEST_ORIGIN"],
              let root = env["PREFETCH_TEST_ORIGIN_ROOT"]
        else {
            throw Missing(description: "integration tests need servers: run scripts/test.sh (it starts redis-server and the test origin)")
        }
        return TestEnvironment(redisURL: try RedisURL(parsing: redis), origin: origin, originRoot: root)
    }

    /// A prefix no other test uses, so tests can share one Redis.
    public static func uniquePrefix(_ name: String = "t") -> String {
        "test-\(name)-\(UInt64.random(in: 0...UInt64.max) % 1_000_000_000)"
    }

    /// A fresh, empty directory under the system temp directory.
    public static func temporaryDirectory(_ name: String = "cache") throws -> String {
        let path = NSTemporaryDirectory() + "prefetchd-\(name)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Writes `bytes` where the origin serves them; returns the URL.
    public func serve(_ bytes: [UInt8], as name: String) throws -> String {
        let path = originRoot + "/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return origin + "/files/" + name
    }

    public func redis() throws -> RedisConnection {
        try RedisConnection(url: redisURL)
    }
}

/// Deterministic pseudo-random bytes, so test bodies differ from each other.
public func testBytes(count: Int, seed: UInt64) -> [UInt8] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    return (0..<count).map { _ in
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt8(truncatingIfNeeded: state)
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` passes. A bound on waiting,
/// not a timing assertion: callers assert on the state reached.
@discardableResult
public func waitUntil(timeout: Double = 30, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return try condition()
}

/// The HTTP/2 TLS origin `scripts/test.sh` starts (nginx with a self-signed certificate),
/// serving the same files as the test origin under `/files/`.
public struct TLSOrigin: Sendable {
    public let base: String
    public let caFile: String
    /// nginx's access log: "<protocol> <connection number> <uri>" per request.
    public let accessLog: String

    public static func current() throws -> TLSOrigin {
        let env = ProcessInfo.processInfo.environment
        guard let base = env["PREFETCH_TEST_TLS_ORIGIN"], let ca = env["PREFETCH_TEST_CA_FILE"],
              let log = env["PREFETCH_TEST_TLS_LOG"] else {
            throw TestEnvironment.Missing(description: "the TLS origin is missing: run scripts/test.sh")
        }
        return TLSOrigin(base: base, caFile: ca, accessLog: log)
    }

    /// Logged requests whose URI contains `marker`: (protocol, connection).
    public func requests(containing marker: String) -> [(proto: String, connection: String)] {
        let text = (try? String(contentsOfFile: accessLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains(marker) }.compactMap { line in
            let parts = line.split(separator: " ")
            return parts.count >= 3 ? (String(parts[0]), String(parts[1])) : nil
        }
    }
}
