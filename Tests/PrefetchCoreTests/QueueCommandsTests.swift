import Testing
import PrefetchCore
@testable import PrefetchRedis

@Suite struct QueueCommandsTests {
    @Test func takesFromTheEndTheOrderNames() {
        let keys = RedisKeys(prefix: "p")
        #expect(QueueCommands.takeBatch(keys, worker: "w", count: 5, order: .fifo).suffix(3) == ["5", "RIGHT", "p:dead"])
        #expect(QueueCommands.takeBatch(keys, worker: "w", count: 5, order: .lifo).suffix(3) == ["5", "LEFT", "p:dead"])
        #expect(QueueCommands.takeBlocking(keys, worker: "w", timeout: 1, order: .lifo)[3] == "LEFT")
        #expect(Array(QueueCommands.takeBatch(keys, worker: "w", count: 1, order: .fifo)[2...8]) ==
                ["6", "p:queue:high", "p:queue", "p:queue:low", "p:processing:w:high", "p:processing:w", "p:processing:w:low"])
    }

    @Test func lifoBatchIsGivenBackInPushOrderPerList() throws {
        // LIFO takes newest first: high h2,h1 then normal n3,n2.
        let reply = RedisReply.array([.integer(1), .string("h2"), .integer(1), .string("h1"),
                                      .integer(2), .string("n3"), .integer(2), .string("n2")])
        let taken = try QueueCommands.batch(from: reply, order: .lifo)
        #expect(taken.map(\.raw) == ["h1", "h2", "n2", "n3"])
        #expect(taken.map(\.queue) == [.high, .high, .normal, .normal])
        let fifo = try QueueCommands.batch(from: .array([.integer(3), .string("l1")]), order: .fifo)
        #expect(fifo == [QueueCommands.Taken(raw: "l1", queue: .low)])
    }

    @Test func returnedJobsGoBackToTheirListAtTheTakingEnd() throws {
        let job = try JobParser.parse("http://a/x")
        let outcome = Outcome(rawJob: job.raw, job: job, queue: .high, result: .returnToQueue, durationSeconds: 0)
        let fifo = OutcomeCommands(keys: RedisKeys(prefix: "p"), worker: "w", order: .fifo).commands(for: outcome, time: 0)
        #expect(fifo[0] == ["RPUSH", "p:queue:high", "http://a/x"])
        let lifo = OutcomeCommands(keys: RedisKeys(prefix: "p"), worker: "w", order: .lifo).commands(for: outcome, time: 0)
        #expect(lifo[0] == ["LPUSH", "p:queue:high", "http://a/x"])
    }
}
