import Foundation
import PrefetchCore
import PrefetchRedis
import Synchronization

/// Takes jobs from Redis on its own thread and connection. It takes only as many as the
/// in-flight gate allows, first in one non-blocking batch, then by blocking briefly.
final class JobIntake: Sendable {
    struct Settings: Sendable {
        var keys: RedisKeys
        var worker: String
        var url: RedisURL
        /// Server-side wait of one blocking take, in seconds. Well below the socket timeout.
        var blockTimeout: Double
        var maxBatch: Int
        var order: ExecutionOrder
    }

    private let settings: Settings
    private let gate: InFlightGate
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let deliver: @Sendable (QueueCommands.Taken) -> Void

    init(settings: Settings, gate: InFlightGate, deliver: @escaping @Sendable (QueueCommands.Taken) -> Void) {
        self.settings = settings
        self.gate = gate
        self.deliver = deliver
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "prefetchd-intake"
        thread.start()
    }

    /// Stops taking jobs; returns once the thread has delivered its last batch.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
    }

    private func run() {
        let redis = ReconnectingRedis(url: settings.url, role: "intake", shouldStop: { [self] in
            stopping.load(ordering: .relaxed)
        })
        while !stopping.load(ordering: .relaxed) {
            let free = gate.waitForFreeSlots(timeout: 0.5)
            guard free > 0, !stopping.load(ordering: .relaxed) else { continue }
            let jobs: [QueueCommands.Taken]
            do {
                jobs = try redis.run { conn throws(RedisError) in try take(upTo: min(free, settings.maxBatch), conn) }
            } catch {
                if !stopping.load(ordering: .relaxed) {
                    Log.error("intake: \(error)")
                    Thread.sleep(forTimeInterval: 1)
                }
                continue
            }
            gate.acquire(jobs.count)
            for job in jobs { deliver(job) }
        }
        finished.signal()
    }

    /// Highest non-empty list first, in one round trip; when all are empty, block briefly.
    private func take(upTo count: Int, _ conn: RedisConnection) throws(RedisError) -> [QueueCommands.Taken] {
        let s = settings
        let batch = try QueueCommands.batch(
            from: conn.command(QueueCommands.takeBatch(s.keys, worker: s.worker, count: count, order: s.order)), order: s.order)
        if !batch.isEmpty { return batch }
        let one = try QueueCommands.blocking(
            from: conn.command(QueueCommands.takeBlocking(s.keys, worker: s.worker, timeout: s.blockTimeout, order: s.order)))
        return one.map { [$0] } ?? []
    }
}
