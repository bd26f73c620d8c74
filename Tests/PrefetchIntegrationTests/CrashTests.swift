import Foundation
import PrefetchCore
import PrefetchRedis
import PrefetchTestSupport
import Testing

/// `kill -9` at any moment loses no job.
@Suite(.serialized) struct CrashTests {
    func workerArguments(_ env: TestEnvironment, _ keys: RedisKeys, cache: String, id: String) -> [String] {
        ["worker", "--prefix", keys.prefix, "--worker-id", id, "--redis", env.redisURL.urlString, "--cache-dir", cache,
         "--heartbeat-ttl", "1", "--grace", "2", "--log-level", "error", "--max-recoveries", "50"]
    }

    @Test func killNineRepeatedlyLosesNoJob() throws {
        let env = try TestEnvironment.current()
        let keys = RedisKeys(prefix: TestEnvironment.uniquePrefix("kill9"))
        let cache = try TestEnvironment.temporaryDirectory("kill9")
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let redis = try env.redis()
        let total = 2000
        let jobs = (0..<total).map { #"{"url":"\#(env.origin)/delay?ms=300&k=\#(keys.prefix)&i=\#($0)","id":"\#($0)"}"# }
        _ = try redis.command(["LPUSH", keys.queue] + jobs).check()

        var workers: [Int: PrefetchdProcess] = [:]
        var generation = 0
        func spawn(_ slot: Int) throws {
            generation += 1
            workers[slot] = try PrefetchdProcess(workerArguments(env, keys, cache: cache, id: "k\(slot)-\(generation)"))
        }
        for slot in 0..<3 { try spawn(slot) }

        var kills = 0
        let deadline = Date(timeIntervalSinceNow: 60)
        while kills < 12, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.4)
            let slot = kills % 3
            kill(workers[slot]!.process.processIdentifier, SIGKILL)
            workers[slot]!.process.waitUntilExit()
            kills += 1
            try spawn(slot)
        }

        func completed() throws -> [[String: Any]] {
            try redis.streamEvents(keys.eventLog).filter { $0["event"] as? String == "completed" }
        }
        func completedIDs() throws -> [String] { try completed().compactMap { $0["id"] as? String } }
        let finished = try waitUntil(timeout: 120) { Set(try completedIDs()).count == total }
        let ids = try completedIDs()
        let duplicates = ids.count - Set(ids).count
        let recovered = try completed().filter { ($0["recovered"] as? Int ?? 0) > 0 }.count
        print("kill -9 run: \(total) jobs, \(kills) kills, \(ids.count) completed outcomes, \(Set(ids).count) distinct, \(duplicates) duplicates, \(recovered) completed after recovery from a killed worker")
        #expect(recovered > 0) // the kills did hit jobs in flight
        #expect(finished)
        #expect(Set(ids) == Set((0..<total).map(String.init)))
        #expect(try redis.int("LLEN", keys.queue) == 0)
        #expect(try redis.int("LLEN", keys.dead) == 0)
        for (_, w) in workers { #expect(w.signal(SIGTERM) == 0) }
    }

    @Test func poisonPillIsDeadLetteredAfterRepeatedRecoveries() throws {
        let env = try TestEnvironment.current()
        let keys = RedisKeys(prefix: TestEnvironment.uniquePrefix("poison"))
        let cache = try TestEnvironment.temporaryDirectory("poison")
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let redis = try env.redis()
        // A job that never finishes: each worker that takes it is killed, as if it crashed.
        let pill = #"{"url":"\#(env.origin)/delay?ms=60000&k=\#(keys.prefix)","id":"pill"}"#
        try redis.run("LPUSH", keys.queue, pill)

        var cycles = 0
        var current: PrefetchdProcess?
        let deadDeadline = Date(timeIntervalSinceNow: 60)
        while try redis.int("LLEN", keys.dead) == 0, Date() < deadDeadline {
            cycles += 1
            let id = "p\(cycles)"
            var args = workerArguments(env, keys, cache: cache, id: id)
            args[args.count - 1] = "2" // --max-recoveries 2
            let worker = try PrefetchdProcess(args)
            current = worker
            let holding = try waitUntil(timeout: 15) {
                try redis.int("LLEN", keys.processing(worker: id)) > 0 || redis.int("LLEN", keys.dead) > 0
            }
            if try redis.int("LLEN", keys.dead) > 0 { break }
            #expect(holding)
            kill(worker.process.processIdentifier, SIGKILL)
            worker.process.waitUntilExit()
        }
        let dead = try redis.strings("LRANGE", keys.dead, "0", "-1")
        try #require(dead.count == 1)
        let entry = try #require(try JSONSerialization.jsonObject(with: Data(dead[0].utf8)) as? [String: Any])
        #expect((entry["reason"] as? String)?.contains("poison") == true)
        #expect((entry["job"] as? String)?.contains("\"pill\"") == true)
        #expect(cycles <= 4)
        #expect(try redis.int("LLEN", keys.queue) == 0)
        _ = current?.signal(SIGTERM)
    }
}
