import Foundation
import PrefetchCore
import PrefetchRedis
import PrefetchTestSupport
import Testing

/// Several workers on one Redis: cross-worker coalescing, crashes, restarts.
@Suite(.serialized) struct FleetTests {
    @Test func thousandJobsForTenURLsAcrossFourWorkersMakeTenRequests() throws {
        let env = try TestEnvironment.current()
        let keys = RedisKeys(prefix: TestEnvironment.uniquePrefix("fleet"))
        let cache = try TestEnvironment.temporaryDirectory("fleet")
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let workers = try (0..<4).map { i in
            try WorkerHarness("fleet-\(i)", keys: keys, cacheDirectory: cache) { c in c.deferDelay = 0.1 }
        }
        let urls = (0..<10).map { env.origin + "/delay?ms=300&k=\(keys.prefix)&u=\($0)" }
        let jobs = (0..<1000).map { #"{"url":"\#(urls[$0 % 10])","id":"\#($0)"}"# }
        try workers[0].push(jobs)
        workers.forEach { $0.start() }
        defer { workers.forEach { $0.stop() } }

        let events = try workers[0].waitForEvents(1000, timeout: 60)
        #expect(events.count == 1000)
        #expect(events.allSatisfy { $0["event"] as? String == "completed" })
        #expect(Set(events.compactMap { $0["id"] as? String }).count == 1000)
        let stats = try OriginStats.fetch(env.origin)
        #expect(urls.map { stats.count(String($0.dropFirst(env.origin.count))) } == Array(repeating: 1, count: 10))
    }

    @Test func sigtermFinishesWithinTheGracePeriodAndLosesNothing() throws {
        let env = try TestEnvironment.current()
        let keys = RedisKeys(prefix: TestEnvironment.uniquePrefix("term"))
        let cache = try TestEnvironment.temporaryDirectory("term")
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let redis = try env.redis()
        // 20 quick jobs and 20 that outlast the grace period.
        let quick = (0..<20).map { #"{"url":"\#(env.origin)/delay?ms=200&k=\#(keys.prefix)&q=\#($0)","id":"q\#($0)"}"# }
        let slow = (0..<20).map { #"{"url":"\#(env.origin)/delay?ms=20000&k=\#(keys.prefix)&s=\#($0)","id":"s\#($0)"}"# }
        _ = try redis.command(["LPUSH", keys.queue] + quick + slow).check()
        let worker = try PrefetchdProcess(["worker", "--prefix", keys.prefix, "--worker-id", "term-1", "--grace", "2",
                                           "--redis", env.redisURL.urlString, "--cache-dir", cache])
        try #require(try waitUntil(timeout: 20) { try redis.int("LLEN", keys.queue) == 0 })
        Thread.sleep(forTimeInterval: 0.5)
        let started = Date()
        #expect(worker.signal(SIGTERM, timeout: 15) == 0)
        #expect(-started.timeIntervalSinceNow < 6)

        let completed = try redis.streamEvents(keys.eventLog).filter { $0["event"] as? String == "completed" }.compactMap { $0["id"] as? String }
        let requeued = try redis.strings("LRANGE", keys.queue, "0", "-1")
        #expect(Set(completed) == Set((0..<20).map { "q\($0)" }))
        #expect(requeued.count == 20)
        #expect(Set(requeued) == Set(slow))
        for p in Job.Priority.allCases {
            #expect(try redis.int("LLEN", keys.processing(worker: "term-1", p)) == 0)
        }
        #expect(try redis.int("SISMEMBER", keys.workers, "term-1") == 0)
    }

    @Test func redisRestartMidRunLosesNothing() throws {
        let env = try TestEnvironment.current()
        let server = try RedisServerProcess()
        let keys = RedisKeys(prefix: "restart")
        let h = try WorkerHarness("restart", keys: keys) { c in c.redisURL = server.url }
        defer { h.stop() }
        let redis = { try RedisConnection(url: server.url) }
        let jobs = (0..<300).map { #"{"url":"\#(env.origin)/delay?ms=20&k=restart-\#(server.port)&i=\#($0)","id":"\#($0)"}"# }
        _ = try redis().command(["LPUSH", keys.queue] + jobs).check()
        h.start()
        try #require(try waitUntil(timeout: 30) { try redis().int("XLEN", keys.eventLog) >= 50 })
        server.stop()
        Thread.sleep(forTimeInterval: 1)
        try server.start()

        let done = try waitUntil(timeout: 60) {
            guard let conn = try? redis() else { return false }
            let ids = Set(try conn.streamEvents(keys.eventLog).filter { $0["event"] as? String == "completed" }.compactMap { $0["id"] as? String })
            return ids.count == 300
        }
        #expect(done)
        #expect(try redis().int("LLEN", keys.queue) == 0)
    }
}
