import Foundation
import PrefetchCore
import PrefetchRedis
import PrefetchTestSupport
import Testing

/// Delivery under awkward input and an unwilling Redis.
@Suite struct EdgeCaseDeliveryTests {
    /// Pushes `prefix` + byte 0xFF: a job that is not valid UTF-8, as `redis-cli` can send.
    func pushInvalidUTF8(_ h: WorkerHarness, _ prefix: String) throws {
        _ = try h.redis.command(["EVAL", "return redis.call('LPUSH', KEYS[1], ARGV[1] .. string.char(255))", "1", h.keys.queue, prefix]).check()
    }

    @Test func jobsThatAreNotUTF8AreDeadLetteredOnBothTakePaths() throws {
        let h = try WorkerHarness("utf8")
        defer { h.stop() }
        let good = try h.env.serve(testBytes(count: 10, seed: 1), as: "\(h.keys.prefix)/ok.bin")
        try pushInvalidUTF8(h, "http://example.com/caf")   // taken by the batch script
        h.start()
        #expect(try waitUntil(timeout: 10) { try h.redis.int("LLEN", h.keys.dead) == 1 })
        Thread.sleep(forTimeInterval: 0.5)                  // idle: the next take blocks
        try pushInvalidUTF8(h, "http://example.com/blocking-")
        try h.push(good)
        try h.waitForEvents(1)
        #expect(try waitUntil(timeout: 10) { try h.redis.int("LLEN", h.keys.dead) == 2 })
        let reasons = try h.redis.strings("LRANGE", h.keys.dead, "0", "-1")
        #expect(reasons.allSatisfy { $0.contains("not valid UTF-8") })
        for p in Job.Priority.allCases {
            #expect(try h.redis.int("LLEN", h.keys.processing(worker: h.worker.configuration.workerID, p)) == 0)
        }
    }

    @Test func recoveryLeavesJobsAsTheyWereApartFromTheCount() throws {
        let h = try WorkerHarness("recover-text") { c in c.images.thumbnails = [8] }
        defer { h.stop() }
        let url = try h.env.serve(testBytes(count: 10, seed: 2), as: "\(h.keys.prefix)/r.bin")
        // A registered worker with no heartbeat: dead. Its jobs must come back unchanged.
        let ghost = "ghost-\(h.keys.prefix)"
        try h.redis.run("SADD", h.keys.workers, ghost)
        let json = #"{"url":"\#(url)","id":"json","thumbnails":[]}"#
        try h.redis.run("RPUSH", h.keys.processing(worker: ghost), json, url + "\r\n")
        h.start()
        let events = try h.waitForEvents(2)
        #expect(events.allSatisfy { $0["event"] as? String == "completed" })
        #expect(events.allSatisfy { $0["recovered"] as? Int == 1 })
        #expect(events.first { $0["id"] as? String == "json" }?["thumbnails"] == nil) // [] kept: no thumbnails
        #expect(try h.redis.int("LLEN", h.keys.dead) == 0)
        #expect(try h.redis.int("SISMEMBER", h.keys.workers, ghost) == 0)
    }

    @Test func outcomesRefusedByAFullRedisAreWrittenLaterNotLost() throws {
        let env = try TestEnvironment.current()
        let server = try RedisServerProcess()
        let keys = RedisKeys(prefix: "oom")
        let h = try WorkerHarness("oom", keys: keys) { c in c.redisURL = server.url }
        defer { h.stop() }
        let redis = try RedisConnection(url: server.url)
        let jobs = (0..<10).map { #"{"url":"\#(env.origin)/delay?ms=1000&k=oom-\#(server.port)&i=\#($0)","id":"\#($0)"}"# }
        _ = try redis.command(["LPUSH", keys.queue] + jobs).check()
        h.start()
        #expect(try waitUntil(timeout: 10) { try redis.int("LLEN", keys.queue) == 0 })
        // While the transfers run, Redis stops accepting writes that need memory.
        try redis.run("CONFIG", "SET", "maxmemory-policy", "noeviction")
        try redis.run("CONFIG", "SET", "maxmemory", "1")
        Thread.sleep(forTimeInterval: 2.5)
        let duringOutage = try redis.int("XLEN", keys.eventLog)
        let processing = try redis.int("LLEN", keys.processing(worker: h.worker.configuration.workerID))
        try redis.run("CONFIG", "SET", "maxmemory", "0")
        #expect(duringOutage == 0)
        #expect(processing == 10) // refused outcomes were not acknowledged
        #expect(try waitUntil(timeout: 20) {
            Set(try redis.streamEvents(keys.eventLog).compactMap { $0["id"] as? String }) == Set((0..<10).map(String.init))
        })
        #expect(try waitUntil(timeout: 5) { try redis.int("LLEN", keys.processing(worker: h.worker.configuration.workerID)) == 0 })
    }
}
