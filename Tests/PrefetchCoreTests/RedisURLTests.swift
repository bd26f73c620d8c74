import Testing
import PrefetchCore
@testable import PrefetchRedis

@Suite struct RedisURLTests {
    @Test func defaults() throws {
        let u = try RedisURL(parsing: "redis://")
        #expect(u.endpoint == .tcp(host: "127.0.0.1", port: 6379))
        #expect(u.database == 0 && u.user == nil && u.password == nil)
    }

    @Test func full() throws {
        let u = try RedisURL(parsing: "redis://worker:p%40ss@redis.internal:6380/3")
        #expect(u.endpoint == .tcp(host: "redis.internal", port: 6380))
        #expect(u.database == 3)
        #expect(u.user == "worker")
        #expect(u.password == "p@ss")
        #expect(!u.description.contains("p@ss"))
    }

    @Test func passwordOnly() throws {
        let u = try RedisURL(parsing: "redis://:secret@10.0.0.1")
        #expect(u.user == nil && u.password == "secret")
        #expect(u.endpoint == .tcp(host: "10.0.0.1", port: 6379))
    }

    @Test func ipv6() throws {
        #expect(try RedisURL(parsing: "redis://[::1]:7000/1").endpoint == .tcp(host: "::1", port: 7000))
    }

    @Test func unixSocket() throws {
        let u = try RedisURL(parsing: "unix:///run/redis.sock?db=2&password=x")
        #expect(u.endpoint == .unix(path: "/run/redis.sock"))
        #expect(u.database == 2 && u.password == "x")
    }

    @Test(arguments: ["http://localhost", "redis://host:notaport", "redis://host/-1", "unix://relative.sock", "unix:///s?bogus=1"])
    func rejects(text: String) {
        #expect(throws: RedisError.self) { try RedisURL(parsing: text) }
    }

    @Test func outcomeCommandsForPermanentFailure() throws {
        let job = try JobParser.parse("http://a.com/x")
        let commands = OutcomeCommands(keys: RedisKeys(prefix: "p"), worker: "w")
            .commands(for: Outcome(rawJob: job.raw, job: job, result: .failed(.http(status: 404)), durationSeconds: 0), time: 1)
        #expect(commands.map { $0[0] } == ["PUBLISH", "XADD", "SADD", "HSET", "LREM"])
        #expect(commands[2] == ["SADD", "p:failed", "http://a.com/x"])
        #expect(commands.last == ["LREM", "p:processing:w", "1", "http://a.com/x"])
    }

    @Test func transientFailureNeverEntersTheFailedSet() throws {
        let job = try JobParser.parse("http://a.com/x")
        let commands = OutcomeCommands(keys: RedisKeys(prefix: "p"), worker: "w")
            .commands(for: Outcome(rawJob: job.raw, job: job, result: .failed(.http(status: 503)), durationSeconds: 0), time: 1)
        #expect(!commands.contains { $0[0] == "SADD" || $0[0] == "HSET" })
    }

    @Test func deadLetterKeepsTheRawJob() {
        let commands = OutcomeCommands(keys: RedisKeys(prefix: "p"), worker: "w")
            .commands(for: Outcome(rawJob: "{}", job: nil, result: .deadLettered(reason: "no url"), durationSeconds: 0), time: 1)
        let push = commands.first { $0[0] == "LPUSH" }
        #expect(push?[1] == "p:dead")
        #expect(push?[2].contains("\"job\":\"{}\"") == true)
        #expect(push?[2].contains("no url") == true)
    }

    @Test func enqueueIsChunked() {
        let jobs = (0..<2500).map { "http://a/\($0)" }
        let commands = QueueCommands.enqueue(jobs, to: "p:queue")
        #expect(commands.count == 3)
        #expect(commands.map { $0.count - 2 } == [1000, 1000, 500])
    }
}

@Suite struct RedisURLDecodingTests {
    @Test func malformedPercentEncodingIsKeptAsWritten() throws {
        #expect(try RedisURL(parsing: "redis://:a%zzb@h").password == "a%zzb")
        #expect(try RedisURL(parsing: "redis://:a%2Fb@h").password == "a/b")
    }
}
