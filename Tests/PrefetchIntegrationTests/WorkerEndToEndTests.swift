import Foundation
import PrefetchCache
import PrefetchTestSupport
import Testing

/// The whole path against a real redis-server and a real HTTP origin on loopback.
@Suite(.serialized) struct WorkerEndToEndTests {
    @Test func pushedURLEndsUpInTheCacheWithOneEvent() throws {
        let h = try WorkerHarness("e2e-ok")
        defer { h.stop() }
        let body = testBytes(count: 50_000, seed: 1)
        let url = try h.env.serve(body, as: "\(h.keys.prefix)/a.bin")
        let subscriber = try EventSubscriber(url: h.env.redisURL, channel: h.keys.events)
        defer { subscriber.stop() }
        h.start()
        try h.push(url)

        let events = try h.waitForEvents(1)
        try #require(events.count == 1)
        #expect(events[0]["event"] as? String == "completed")
        #expect(events[0]["source"] as? String == "network")
        #expect(events[0]["url"] as? String == url)
        #expect(events[0]["bytes"] as? Int == body.count)
        let path = try #require(events[0]["path"] as? String)
        #expect(FileManager.default.contents(atPath: path) == Data(body))
        #expect(path == CacheReader(root: h.cacheDirectory).entry(forKey: url)?.bodyPath)

        #expect(waitUntil(timeout: 5) { subscriber.count >= 1 })
        #expect(subscriber.count == 1)
        #expect(subscriber.events.first?["path"] as? String == path)

        // Acknowledged: nothing left in the processing list.
        #expect(try h.redis.int("LLEN", h.keys.processing(worker: h.worker.configuration.workerID)) == 0)
        let meta = try #require(try CacheReader(root: h.cacheDirectory).entry(forURL: url)).metadata
        #expect(meta.url == url && meta.size == body.count && meta.etag != nil && meta.lastModified != nil)
        #expect(meta.sha256 == body.withUnsafeBytes { SHA256.hex($0) })
    }

    @Test func notFoundGoesToTheFailedSetWithItsReason() throws {
        let h = try WorkerHarness("e2e-404")
        defer { h.stop() }
        let url = h.env.origin + "/files/\(h.keys.prefix)/missing.jpg"
        h.start()
        try h.push(url)

        let events = try h.waitForEvents(1)
        #expect(events.first?["event"] as? String == "failed")
        #expect(events.first?["kind"] as? String == "permanent")
        #expect(events.first?["status"] as? Int == 404)
        #expect(try h.redis.strings("SMEMBERS", h.keys.failed) == [url])
        let record = try #require(try h.redis.command(["HGET", h.keys.failedReasons, url]).string)
        #expect(record.contains("HTTP 404"))
        #expect(h.cacheBodies().isEmpty)
    }

    @Test func transientFailureIsNotMarkedFailed() throws {
        let h = try WorkerHarness("e2e-503") { c in c.retry.maxAttempts = 1 }
        defer { h.stop() }
        h.start()
        try h.push(h.env.origin + "/status/503", "http://127.0.0.1:1/refused")
        let events = try h.waitForEvents(2)
        #expect(events.allSatisfy { $0["event"] as? String == "failed" && $0["kind"] as? String == "transient" })
        #expect(events.allSatisfy { $0["exhausted"] as? Bool == true })
        #expect(try h.redis.int("SCARD", h.keys.failed) == 0)
    }

    @Test func cachedURLIsServedWithoutARequest() throws {
        let h = try WorkerHarness("e2e-hit")
        defer { h.stop() }
        let name = "\(h.keys.prefix)/hit.bin"
        let url = try h.env.serve(testBytes(count: 1000, seed: 2), as: name)
        h.start()
        try h.push(url)
        try h.waitForEvents(1)
        #expect(try OriginStats.fetch(h.env.origin).count("/files/" + name) == 1)

        // Same resource, different spelling: same key.
        try h.push(url.replacingOccurrences(of: "http://", with: "HTTP://") + "#again")
        let events = try h.waitForEvents(2)
        try #require(events.count == 2)
        #expect(events[1]["event"] as? String == "completed")
        #expect(events[1]["source"] as? String == "cache")
        #expect(events[1]["path"] as? String == events[0]["path"] as? String)
        #expect(try OriginStats.fetch(h.env.origin).count("/files/" + name) == 1)
    }

    @Test func invalidJobsAreDeadLetteredAndTheWorkerCarriesOn() throws {
        let h = try WorkerHarness("e2e-dead")
        defer { h.stop() }
        let good = try h.env.serve(testBytes(count: 100, seed: 3), as: "\(h.keys.prefix)/good.bin")
        let invalid = ["not a url", "{\"id\":\"no-url\"}", "ftp://example.com/a.jpg", " ", "{broken json", "[1,2]"]
        h.start()
        // LPUSH pushes left to right; the worker takes from the right, so the good job comes last.
        try h.push([good] + invalid)

        let events = try h.waitForEvents(invalid.count + 1)
        #expect(events.count == invalid.count + 1)
        #expect(events.last?["event"] as? String == "completed")
        #expect(events.filter { $0["event"] as? String == "dead" }.count == invalid.count)

        let dead = try h.redis.strings("LRANGE", h.keys.dead, "0", "-1").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(Set(dead.compactMap { $0["job"] as? String }) == Set(invalid))
        #expect(dead.allSatisfy { !(($0["reason"] as? String) ?? "").isEmpty })
        #expect(dead.contains { $0["job"] as? String == "ftp://example.com/a.jpg" && ($0["reason"] as? String)?.contains("ftp") == true })
        #expect(try h.redis.int("LLEN", h.keys.queue) == 0)
    }
}
