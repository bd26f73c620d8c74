import Foundation
import PrefetchCore
import PrefetchTestSupport
import Testing

/// Transient failures are retried with backoff; permanent ones enter the failed set,
/// which later jobs respect unless they say `retry_failed`.
@Suite struct RetryAndFailedSetTests {
    @Test func retryAfterIsHonouredAndTheThirdAttemptSucceeds() throws {
        let h = try WorkerHarness("retry-after")
        defer { h.stop() }
        let path = "/flaky?fail=2&retry_after=1&k=\(h.keys.prefix)"
        try h.push(h.env.origin + path)
        h.start()
        let events = try h.waitForEvents(3, timeout: 30)
        #expect(events.map { $0["event"] as? String } == ["retrying", "retrying", "completed"])
        #expect(events.map { $0["attempt"] as? Int } == [1, 2, 3])
        #expect(events[0]["status"] as? Int == 503)
        #expect(((events[0]["retry_in_ms"] as? Int) ?? 0) >= 1000)
        let times = try OriginStats.fetch(h.env.origin).times[path] ?? []
        try #require(times.count == 3)
        #expect(times[1] - times[0] >= 0.95)
        #expect(times[2] - times[1] >= 0.95)
        #expect(try h.redis.int("SCARD", h.keys.failed) == 0)
        #expect(try h.redis.int("ZCARD", h.keys.retry) == 0)
    }

    @Test func exhaustedTransientFailureStaysOutOfTheFailedSetByDefault() throws {
        let h = try WorkerHarness("exhaust") { c in c.retry.maxAttempts = 2 }
        defer { h.stop() }
        try h.push(h.env.origin + "/status/500?k=\(h.keys.prefix)")
        h.start()
        let events = try h.waitForEvents(2)
        #expect(events.map { $0["event"] as? String } == ["retrying", "failed"])
        #expect(events.last?["exhausted"] as? Bool == true)
        #expect(try h.redis.int("SCARD", h.keys.failed) == 0)
    }

    @Test func failedURLIsSkippedUnlessRetryFailed() throws {
        let h = try WorkerHarness("skip")
        defer { h.stop() }
        let name = "\(h.keys.prefix)/later.bin"
        let url = h.env.origin + "/files/" + name
        h.start()
        try h.push(url)
        try h.waitForEvents(1)
        #expect(try h.redis.strings("SMEMBERS", h.keys.failed) == [url])
        let record = try #require(try h.redis.command(["HGET", h.keys.failedReasons, url]).string)
        #expect(record.contains("\"attempts\":1") && record.contains("HTTP 404"))

        try h.push(url)
        let skipped = try h.waitForEvents(2)
        #expect(skipped.last?["event"] as? String == "skipped")
        #expect(try OriginStats.fetch(h.env.origin).count("/files/" + name) == 1)

        // The file appears; a retry_failed job fetches it and clears the failed entry.
        _ = try h.env.serve(testBytes(count: 64, seed: 5), as: name)
        try h.push(#"{"url":"\#(url)","retry_failed":true}"#)
        let done = try h.waitForEvents(3)
        #expect(done.last?["event"] as? String == "completed")
        #expect(try h.redis.int("SCARD", h.keys.failed) == 0)
        #expect(try h.redis.int("HLEN", h.keys.failedReasons) == 0)
    }

    @Test func failedEntriesExpire() throws {
        let h = try WorkerHarness("failed-ttl") { c in c.outcomes.failedTTL = 0.5 }
        defer { h.stop() }
        try h.push(h.env.origin + "/status/410?k=\(h.keys.prefix)")
        h.start()
        try h.waitForEvents(1)
        #expect(try h.redis.int("SCARD", h.keys.failed) == 1)
        // The housekeeper sweeps expired entries (every TTL/2 here, at most every 30 s).
        #expect(try waitUntil(timeout: 10) { try h.redis.int("SCARD", h.keys.failed) == 0 })
        #expect(try h.redis.int("HLEN", h.keys.failedReasons) == 0)
        #expect(try h.redis.int("ZCARD", h.keys.failedExpiry) == 0)
    }
}
