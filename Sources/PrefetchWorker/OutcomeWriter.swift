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
    /// Outcomes Redis refused (full, read-only): already prepared, written again later.
    private var redo: [Outcome] = []
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
        while let (batch, isRedo) = nextBatch() {
            let prepared = isRedo ? batch : batch.map(prepare)
            let refused = write(prepared)
            recorded(prepared.enumerated().filter { !refused.contains($0.offset) }.map(\.element))
            if !refused.isEmpty {
                // Kept, not dropped: the jobs stay in the processing list until this works.
                condition.lock()
                redo.append(contentsOf: refused.sorted().map { prepared[$0] })
                condition.unlock()
                Thread.sleep(forTimeInterval: 1)
            }
        }
        done.signal()
    }

    /// Two pipelines: first what records each outcome, then the acknowledgements of those
    /// whose every command succeeded. Returns the indices of outcomes Redis refused.
    private func write(_ outcomes: [Outcome]) -> Set<Int> {
        let time = Date().timeIntervalSince1970
        let records = outcomes.map { commands.record($0, time: time) }
        do {
            return try redis.run { conn throws(RedisError) -> Set<Int> in
                let replies = try conn.pipeline(records.flatMap { $0 })
                var refused = Set<Int>()
                var index = 0
                for (n, record) in records.enumerated() {
                    for _ in record {
                        if case .error(let message) = replies[index] {
                            refused.insert(n)
                            Log.error("recording an outcome: Redis replied \(message); will try again")
                        }
                        index += 1
                    }
                }
                let acks = outcomes.enumerated().compactMap { refused.contains($0.offset) ? nil : commands.ack($0.element) }
                for case .error(let message) in try conn.pipeline(acks) {
                    Log.error("acknowledging a job: Redis replied \(message)")
                }
                return refused
            }
        } catch {
            // Not a broken connection (those are retried inside): try the batch again later.
            Log.error("recording outcomes failed: \(error); will try again")
            return Set(outcomes.indices)
        }
    }

    /// Blocks until there is work; `nil` once stopping and drained. Refused outcomes come
    /// back first, flagged so they are not prepared twice.
    private func nextBatch() -> ([Outcome], Bool)? {
        condition.lock()
        defer { condition.unlock() }
        if !redo.isEmpty {
            defer { redo.removeAll() }
            return (redo, true)
        }
        while pending.isEmpty && !stopping { condition.wait() }
        if pending.isEmpty { return nil }

        let count = min(batchSize, pending.count)
        let batch = Array(pending.prefix(count))
        pending.removeFirst(count)
        return (batch, false)
    }
}
