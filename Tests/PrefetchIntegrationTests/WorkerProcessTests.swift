import Foundation
import PrefetchCache
import PrefetchCore
import PrefetchTestSupport
import Testing

/// The `prefetchd` executable as operators run it.
@Suite(.serialized) struct WorkerProcessTests {
    @Test func thousandJobsGiveThousandEntriesAndEvents() throws {
        let env = try TestEnvironment.current()
        let keys = RedisKeys(prefix: TestEnvironment.uniquePrefix("proc"))
        let cache = try TestEnvironment.temporaryDirectory("proc")
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let redis = try env.redis()
        var urls: [String] = []
        for i in 0..<1000 {
            urls.append(try env.serve(testBytes(count: 2000 + i, seed: UInt64(i)), as: "\(keys.prefix)/\(i).bin"))
        }

        let worker = try PrefetchdProcess(["worker", "--prefix", keys.prefix, "--worker-id", "proc-1"],
                                          environment: ["PREFETCH_REDIS_URL": env.redisURL.urlString, "PREFETCH_CACHE_DIR": cache])
        _ = try redis.command(["LPUSH", keys.queue] + urls).check()

        #expect(try waitUntil(timeout: 120) { try redis.int("XLEN", keys.eventLog) >= 1000 })
        let events = try redis.streamEvents(keys.eventLog)
        #expect(events.count == 1000)
        #expect(events.allSatisfy { $0["event"] as? String == "completed" })
        #expect(Set(events.compactMap { $0["url"] as? String }) == Set(urls))
        let metas = FileManager.default.enumerator(atPath: cache)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".meta") }
        #expect(metas.count == 1000)
        // Spot-check bytes.
        for i in [0, 499, 999] {
            let path = events.first { $0["url"] as? String == urls[i] }?["path"] as? String
            #expect(path.flatMap { FileManager.default.contents(atPath: $0) } == Data(testBytes(count: 2000 + i, seed: UInt64(i))))
        }
        #expect(worker.isRunning)
        #expect(worker.signal(SIGTERM) == 0)
        #expect(try redis.int("LLEN", keys.processing(worker: "proc-1")) == 0)
    }

    @Test func enqueueCommandValidatesAndPushes() throws {
        let env = try TestEnvironment.current()
        let keys = RedisKeys(prefix: TestEnvironment.uniquePrefix("enq"))
        let p = try PrefetchdProcess(["enqueue", "--redis", env.redisURL.urlString, "--prefix", keys.prefix,
                                      "http://a.example/1", "ftp://nope", "{\"url\":\"https://a.example/2\"}"])
        p.process.waitUntilExit()
        #expect(p.process.terminationStatus == 1) // one invalid job reported
        #expect(p.standardError().contains("ftp"))
        let redis = try env.redis()
        #expect(try redis.strings("LRANGE", keys.queue, "0", "-1") == ["{\"url\":\"https://a.example/2\"}", "http://a.example/1"])
    }
}

/// `prefetchd cache ...` against a real cache directory.
@Suite struct CacheCommandTests {
    func run(_ args: [String]) throws -> (status: Int32, out: String) {
        let p = try PrefetchdProcess(args)
        let out = p.standardOutput()
        p.process.waitUntilExit()
        return (p.process.terminationStatus, out)
    }

    @Test func pathGetStatAndPrune() throws {
        let root = try TestEnvironment.temporaryDirectory("cache-cli")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let cache = try DiskCache(root: root)
        let body = testBytes(count: 3000, seed: 7)
        let url = "https://Example.com:443/a.png#x"
        let key = "https://example.com/a.png"
        let temp = try cache.createTemporaryFile(forKey: key)
        _ = body.withUnsafeBytes { write(temp.fd, $0.baseAddress, $0.count) }
        close(temp.fd)
        let entry = try cache.commit(temporaryPath: temp.path, key: key, metadata: CacheMetadata(
            url: key, key: key, size: body.count, sha256: body.withUnsafeBytes { SHA256.hex($0) }, storedAt: 1))

        let path = try run(["cache", "path", url, "--cache-dir", root])
        #expect(path.status == 0 && path.out.trimmingCharacters(in: .whitespacesAndNewlines) == entry.bodyPath)
        let get = try PrefetchdProcess(["cache", "get", "--key", key, "--cache-dir", root])
        let got = get.standardOutputData()
        get.process.waitUntilExit()
        #expect(get.process.terminationStatus == 0)
        #expect(got == Data(body))
        let stat = try run(["cache", "stat", "--cache-dir", root])
        #expect(stat.out.contains("entries 1") && stat.out.contains("bytes 3000"))
        let missing = try run(["cache", "path", "https://example.com/none", "--cache-dir", root])
        #expect(missing.status == 1)

        Thread.sleep(forTimeInterval: 0.2)
        let prune = try run(["cache", "prune", "--max-age", "0.1", "--cache-dir", root])
        #expect(prune.status == 0 && prune.out.contains("removed 1 entries"))
        #expect(try run(["cache", "path", url, "--cache-dir", root]).status == 1)
    }
}

/// `prefetchd failed ...` against a real Redis.
@Suite struct FailedCommandTests {
    @Test func listRemoveAndClear() throws {
        let env = try TestEnvironment.current()
        let keys = RedisKeys(prefix: TestEnvironment.uniquePrefix("failed-cli"))
        let redis = try env.redis()
        for u in ["https://a.example/1", "https://a.example/2", "https://a.example/3"] {
            try redis.run("SADD", keys.failed, u)
            try redis.run("HSET", keys.failedReasons, u, #"{"reason":"HTTP 404","status":404}"#)
        }
        let common = ["--redis", env.redisURL.urlString, "--prefix", keys.prefix]
        let list = try PrefetchdProcess(["failed", "list"] + common)
        let listed = list.standardOutput()
        list.process.waitUntilExit()
        #expect(listed.split(separator: "\n").count == 3 && listed.contains("HTTP 404"))

        let remove = try PrefetchdProcess(["failed", "remove", "HTTPS://A.example:443/2#frag"] + common)
        remove.process.waitUntilExit()
        #expect(remove.process.terminationStatus == 0)
        #expect(try redis.int("SISMEMBER", keys.failed, "https://a.example/2") == 0)
        #expect(try redis.command(["HGET", keys.failedReasons, "https://a.example/2"]) == .null)
        #expect(try redis.int("SCARD", keys.failed) == 2)

        let clear = try PrefetchdProcess(["failed", "clear"] + common)
        clear.process.waitUntilExit()
        #expect(try redis.int("EXISTS", keys.failed, keys.failedReasons) == 0)
    }
}
