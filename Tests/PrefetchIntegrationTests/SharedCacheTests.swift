import Foundation
import PrefetchCache
import PrefetchCore
import PrefetchTestSupport
import Testing

/// The cache shared by many processes: atomic replacement, crash safety, limits, revalidation.
@Suite struct SharedCacheTests {
    @Test func readersNeverSeeABodyThatDoesNotMatchItsMetadata() throws {
        let root = try TestEnvironment.temporaryDirectory("stress")
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = try DiskCache(root: root)
        // Few keys, so writers constantly replace entries that readers are reading.
        let writers = try (0..<3).map { _ in try PrefetchdProcess(["write", root, "4", "4"], tool: "cache-stress") }
        let readers = try (0..<3).map { _ in try PrefetchdProcess(["read", root, "4", "4"], tool: "cache-stress") }
        var reads = 0, writes = 0
        for p in writers + readers {
            p.process.waitUntilExit()
            let fields = p.standardOutput().split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
            #expect(p.process.terminationStatus == 0, "\(fields) \(p.standardError())")
            #expect(fields.count == 3 && fields[2] == "0")
            if fields.first == "read" { reads += Int(fields[1]) ?? 0 } else { writes += Int(fields[1]) ?? 0 }
        }
        print("cache stress: \(writes) overwrites, \(reads) verified reads, 0 mismatches")
        #expect(reads > 100 && writes > 100)
        let report = CacheInspector(root: root).verify(fix: false, orphanAge: 0)
        #expect(report.corrupt == 0)
    }

    @Test func killNineDuringWritesLeavesNothingCorrupt() throws {
        let root = try TestEnvironment.temporaryDirectory("kill-cache")
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = try DiskCache(root: root)
        for round in 0..<3 {
            let writers = try (0..<3).map { _ in try PrefetchdProcess(["write", root, "200", "30"], tool: "cache-stress") }
            Thread.sleep(forTimeInterval: 0.5 + 0.2 * Double(round))
            for w in writers {
                kill(w.process.processIdentifier, SIGKILL)
                w.process.waitUntilExit()
            }
        }
        let cli = try PrefetchdProcess(["cache", "verify", "--cache-dir", root])
        cli.process.waitUntilExit()
        let out = cli.standardOutput()
        #expect(cli.process.terminationStatus == 0, "\(out)")
        #expect(out.contains(" 0 corrupt"))
        // Killed writers leave hidden temp files: never corrupt, reported once stale, and removed.
        let report = CacheInspector(root: root).verify(fix: true, staleAge: 0, orphanAge: 0)
        #expect(report.corrupt == 0)
        #expect(CacheInspector(root: root).statistics().temporaries == 0)
        let stats = CacheInspector(root: root).statistics()
        print("kill -9 during writes: \(stats.entries) intact entries, \(report.problems.count) leftovers cleaned")
        #expect(stats.entries > 0)
    }

    @Test func evictionKeepsTheLimitAndRemovesLeastRecentlyUsedFirst() throws {
        let limit: Int64 = 2_000_000
        let h = try WorkerHarness("evict") { c in
            c.cacheLimits.maxBytes = limit
            c.sweepInterval = 0.5
        }
        defer { h.stop() }
        let a = try (0..<20).map { try h.env.serve(testBytes(count: 50_000, seed: UInt64(100 + $0)), as: "\(h.keys.prefix)/a\($0).bin") }
        let b = try (0..<30).map { try h.env.serve(testBytes(count: 50_000, seed: UInt64(200 + $0)), as: "\(h.keys.prefix)/b\($0).bin") }
        h.start()
        for (i, url) in a.enumerated() { // one at a time, so a0 is older than a1, and so on
            try h.push(url)
            try h.waitForEvents(i + 1)
        }
        Thread.sleep(forTimeInterval: 0.05)
        try h.push(Array(a[0..<5])) // used again: now more recent than a5...a19
        try h.waitForEvents(25)
        Thread.sleep(forTimeInterval: 0.05)
        for url in b { try h.push(url) } // one at a time, as a steady writer
        try h.waitForEvents(55)

        let reader = CacheReader(root: h.cacheDirectory)
        #expect(waitUntil(timeout: 15) { CacheInspector(root: h.cacheDirectory).statistics().bytes <= limit })
        let present = { (url: String) in (try? reader.entry(forURL: url)) != nil }
        #expect(a[0..<5].allSatisfy(present)) // recently used: kept
        #expect(b.allSatisfy(present))        // newest: kept
        // Evicted: a non-empty run of the least recently used, oldest first (a5, a6, ...).
        let evicted = a[5...].filter { !present($0) }
        #expect(!evicted.isEmpty)
        #expect(Array(evicted) == Array(a[5..<(5 + evicted.count)]))
    }

    @Test func refreshRevalidatesWith304AndReplacesOn200() throws {
        let h = try WorkerHarness("revalidate")
        defer { h.stop() }
        let name = "\(h.keys.prefix)/r.bin"
        let path = "/files/" + name
        let url = try h.env.serve(testBytes(count: 3000, seed: 1), as: name)
        h.start()
        try h.push(url)
        let first = try h.waitForEvents(1)
        let reader = CacheReader(root: h.cacheDirectory)
        let original = try #require(try reader.entry(forURL: url))

        try h.push(#"{"url":"\#(url)","refresh":true}"#)
        let second = try h.waitForEvents(2)
        #expect(second[1]["source"] as? String == "revalidated")
        #expect(second[1]["status"] as? Int == 304)
        let seen = try OriginStats.fetch(h.env.origin).headers[path] ?? [:]
        #expect(seen["If-None-Match"] == original.metadata.etag)
        #expect(seen["If-Modified-Since"] == original.metadata.lastModified)
        let revalidated = try #require(try reader.entry(forURL: url))
        #expect(revalidated.bodyPath == original.bodyPath)
        #expect((revalidated.metadata.validatedAt ?? 0) > (original.metadata.validatedAt ?? 0))

        // The origin's copy changes: the conditional request gets a 200 and replaces the entry.
        let changed = testBytes(count: 4000, seed: 2)
        _ = try h.env.serve(changed, as: name)
        try h.push(#"{"url":"\#(url)","refresh":true}"#)
        let third = try h.waitForEvents(3)
        #expect(third[2]["source"] as? String == "network")
        let replaced = try #require(reader.read(key: try reader.key(forURL: url)))
        #expect(replaced.body == Data(changed))
        #expect(replaced.entry.bodyPath != original.bodyPath)
        #expect(!FileManager.default.fileExists(atPath: original.bodyPath))
        #expect(try OriginStats.fetch(h.env.origin).count(path) == 3)
        #expect(first[0]["path"] as? String == original.bodyPath)
    }

    @Test func staleEntriesAreRevalidatedInsteadOfServed() throws {
        let h = try WorkerHarness("max-age") { c in c.revalidateAfter = 0.3 }
        defer { h.stop() }
        let url = try h.env.serve(testBytes(count: 100, seed: 3), as: "\(h.keys.prefix)/m.bin")
        h.start()
        try h.push(url)
        try h.waitForEvents(1)
        try h.push(url)
        let fresh = try h.waitForEvents(2)
        #expect(fresh[1]["source"] as? String == "cache")
        Thread.sleep(forTimeInterval: 0.4)
        try h.push(url)
        let stale = try h.waitForEvents(3)
        #expect(stale[2]["source"] as? String == "revalidated")
    }

    @Test func ignoredQueryParametersShareOneEntry() throws {
        let h = try WorkerHarness("query-key") { c in c.keyPolicy = CacheKeyPolicy(ignoredQueryParameters: ["sig"]) }
        defer { h.stop() }
        let url = try h.env.serve(testBytes(count: 100, seed: 4), as: "\(h.keys.prefix)/q.bin")
        h.start()
        try h.push(url + "?sig=one")
        try h.waitForEvents(1)
        try h.push(url + "?sig=two")
        let events = try h.waitForEvents(2)
        #expect(events[1]["source"] as? String == "cache")
        #expect(events[1]["key"] as? String == url)
        #expect(try CacheReader(root: h.cacheDirectory, keyPolicy: CacheKeyPolicy(ignoredQueryParameters: ["sig"])).entry(forURL: url + "?sig=x") != nil)
    }
}
