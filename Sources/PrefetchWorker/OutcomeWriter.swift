import Foundation
import PrefetchCore
import PrefetchRedis

/// Records outcomes in Redis from its own thread and connection, batching whatever has
/// accumulated into one pipeline. While Redis is away, outcomes wait here (the bound on
/// jobs in flight bounds this buffer too) and are written once it is back.
final class OutcomeWriter: @unchecked Sendable {
    // @unchecked: `pending` and `stopping` are guarded by `condition`; `redis` is touched
    // only by the writer thread.
    private let condition = NSCondition()
    private var pending: [Outcome] = []
    private var stopping = false
    private let commands: OutcomeCommands
    private let redis: ReconnectingRedis
    private let batchSize: Int
    private let done = DispatchSemaphore(value: 0)
    /// Adjusts an outcome just before it is written (lease reference counting).
    private let prepare: @Sendable (Outcome) -> Outcome
    /// Called on the writer thread after each batch is recorded.
    private let recorded: @Sendable ([Outcome]) -> Void

    init(url: RedisURL, commands: OutcomeCommands, batchSize: Int = 512,
         prepare: @escaping @Sendable (Outcome) -> Outcome,
         recorded: @escaping @Sendable ([Outcome]) -> Void) {
        self.commands = commands
        self.batchSize = batchSize
        self.prepare = prepare
        self.recorded = recorded
        redis = ReconnectingRedis(url: url, role: "outcome writer")
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "prefetchd-outcomes"
        thread.start()
    }

    func submit(_ outcome: Outcome) {
        submit(contentsOf: [outcome])
    }

    func submit(contentsOf outcomes: [Outcome]) {
        guard !outcomes.isEmpty else { return }
        condition.lock()
        pending.append(contentsOf: outcomes)
        condition.signal()
        condition.unlock()
    }

    /// Writes everything submitted so far, then stops the thread.
    func stopAfterFlushing() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
        done.wait()
    }

    private func run() {
        while let batch = nextBatch() {
            let prepared = batch.map(prepare)
            let time = Date().timeIntervalSince1970
            let pipeline = prepared.flatMap { commands.commands(for: $0, time: time) }
            do {
                let replies = try redis.run { conn throws(RedisError) in try conn.pipeline(pipeline) }
                for case .error(let message) in replies {
                    Log.error("recording outcomes: Redis replied \(message)")
                }
            } catch {
                // Only non-connection errors reach here (connection errors are retried).
                Log.error("recording outcomes failed: \(error)")
            }
            recorded(prepared)
        }
        done.signal()
    }

    /// Blocks until there is work; `nil` once stopping and drained.
    private func nextBatch() -> [Outcome]? {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty && !stopping { condition.wait() }
        if pending.isEmpty { return nil }

        let count = min(batchSize, pending.count)
        let batch = Array(pending.prefix(count))
        pending.removeFirst(count)
        return batch
    }
}
