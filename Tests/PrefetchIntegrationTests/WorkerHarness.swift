import Foundation
import PrefetchCore
import PrefetchHTTP
import PrefetchRedis
import PrefetchTestSupport
import PrefetchWorker

/// One in-process worker with its own key prefix and cache directory, plus handles on
/// the real Redis and origin it talks to.
final class WorkerHarness {
    let env: TestEnvironment
    let keys: RedisKeys
    let cacheDirectory: String
    let worker: Worker
    let redis: RedisConnection
    private let ownsCache: Bool

    /// - Parameters:
    ///   - keys, cacheDirectory: share these with other harnesses to run several workers
    ///     on one queue and one cache; by default each harness has its own.
    init(_ name: String, keys: RedisKeys? = nil, cacheDirectory: String? = nil,
         configure: (inout Worker.Configuration) -> Void = { _ in }) throws {
        CurlRuntime.initializeOnce()
        env = try TestEnvironment.current()
        self.keys = keys ?? RedisKeys(prefix: TestEnvironment.uniquePrefix(name))
        ownsCache = cacheDirectory == nil
        if let cacheDirectory { self.cacheDirectory = cacheDirectory } else { self.cacheDirectory = try TestEnvironment.temporaryDirectory(name) }
        var c = Worker.Configuration(cacheDirectory: self.cacheDirectory)
        c.redisURL = env.redisURL
        c.keys = self.keys
        c.workerID = "w-\(name)"
        c.blockTimeout = 0.2
        c.shutdownGracePeriod = 5
        c.heartbeatTTL = 2
        c.retry.baseDelay = 0.2
        configure(&c)
        worker = try Worker(configuration: c)
        redis = try env.redis()
    }

    func start() { worker.start() }

    func push(_ jobs: String...) throws {
        _ = try redis.command(["LPUSH", keys.queue] + jobs).check()
    }

    func push(_ jobs: [String]) throws {
        _ = try redis.command(["LPUSH", keys.queue] + jobs).check()
    }

    /// Waits until the event stream holds `count` events; returns them.
    @discardableResult
    func waitForEvents(_ count: Int, timeout: Double = 30) throws -> [[String: Any]] {
        try waitUntil(timeout: timeout) { try redis.int("XLEN", keys.eventLog) >= count }
        return try redis.streamEvents(keys.eventLog)
    }

    func stop() {
        worker.stop()
        if ownsCache { try? FileManager.default.removeItem(atPath: cacheDirectory) }
    }

    /// Bodies (not metadata, not temp files) in the cache.
    func cacheBodies() -> [String] {
        let root = cacheDirectory + "/v1"
        guard let e = FileManager.default.enumerator(atPath: root) else { return [] }
        return e.compactMap { $0 as? String }.filter { $0.hasSuffix(".body") }.map { root + "/" + $0 }
    }
}
