import Foundation
import PrefetchCore
import PrefetchTestSupport
import Testing

/// Each hard limit, enforced against a misbehaving origin.
@Suite struct TransferLimitTests {
    /// Hidden temp files left in the cache (there must be none after a failure).
    func tempFiles(_ h: WorkerHarness) -> [String] {
        FileManager.default.enumerator(atPath: h.cacheDirectory)?.compactMap { $0 as? String }
            .filter { ($0 as NSString).lastPathComponent.hasPrefix(".") } ?? []
    }

    @Test func slowDripIsAborted() throws {
        let h = try WorkerHarness("slow") { c in
            c.downloader.lowSpeedBytesPerSecond = 1000
            c.downloader.lowSpeedSeconds = 1
            c.retry.maxAttempts = 1
        }
        defer { h.stop() }
        try h.push(h.env.origin + "/slow?bytes=100000&bps=10&k=\(h.keys.prefix)")
        h.start()
        let events = try h.waitForEvents(1, timeout: 20)
        #expect(events.first?["event"] as? String == "failed")
        #expect(events.first?["kind"] as? String == "transient")
        #expect(events.first?["exhausted"] as? Bool == true)
        #expect(((events.first?["duration_ms"] as? Int) ?? 0) < 10_000)
        #expect(tempFiles(h).isEmpty)
        #expect(h.cacheBodies().isEmpty)
    }

    @Test(arguments: [false, true])
    func oversizedBodyIsRefusedAndLeavesNoFile(chunked: Bool) throws {
        let h = try WorkerHarness("big-\(chunked)") { c in c.downloader.maxBodyBytes = 100_000 }
        defer { h.stop() }
        let url = h.env.origin + "/big?size=3000000&chunked=\(chunked ? 1 : 0)&k=\(h.keys.prefix)"
        try h.push(url)
        h.start()
        let events = try h.waitForEvents(1)
        #expect(events.first?["event"] as? String == "failed")
        #expect(events.first?["kind"] as? String == "permanent")
        let reason = events.first?["reason"] as? String
        #expect(reason?.contains("limit") == true)
        #expect(tempFiles(h).isEmpty)
        #expect(h.cacheBodies().isEmpty)
        #expect(try h.redis.strings("SMEMBERS", h.keys.failed) == [url])
    }

    @Test func redirectLoopStopsAtTheCap() throws {
        let h = try WorkerHarness("loop") { c in c.downloader.maxRedirects = 3 }
        defer { h.stop() }
        let first = "/redirect-loop?n=0&k=\(h.keys.prefix)"
        try h.push(h.env.origin + first)
        h.start()
        let events = try h.waitForEvents(1)
        #expect(events.first?["event"] as? String == "failed")
        #expect(events.first?["reason"] as? String == "too many redirects")
        let stats = try OriginStats.fetch(h.env.origin)
        #expect(stats.count(first) == 1)
        #expect(stats.count(prefix: "/redirect-loop?n=") >= 4) // the loop did run, then stopped
    }

    @Test(arguments: ["ftp://127.0.0.1/x", "file:///etc/passwd", "gopher://127.0.0.1/x"])
    func redirectToAnotherSchemeIsRefused(target: String) throws {
        let h = try WorkerHarness("scheme")
        defer { h.stop() }
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        try h.push(h.env.origin + "/redirect?to=\(encoded)&k=\(h.keys.prefix)")
        h.start()
        let events = try h.waitForEvents(1)
        #expect(events.first?["event"] as? String == "failed")
        #expect(events.first?["kind"] as? String == "permanent")
        let reason = events.first?["reason"] as? String
        #expect(reason?.contains("scheme") == true)
        #expect(h.cacheBodies().isEmpty)
    }
}
