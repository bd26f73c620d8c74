import Foundation
import PrefetchCore
import PrefetchRedis
import Synchronization

/// Takes jobs from Redis on its own thread and connection. It takes only as many as the
/// in-flight gate allows: first one non-blocking batch across the priority lists, and
/// when they are all empty, a short blocking wait.
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

    typealias Handler = @Sendable ([QueueCommands.Taken], ReconnectingRedis) -> Void

    private let settings: Settings
    private let gate: InFlightGate
    private let held: HeldJobs
    private let thread = DedicatedThread(name: "prefetchd-intake")
    private let beforeFirstTake: @Sendable (_ isStopping: () -> Bool) -> Void
    private let handle: Handler

    init(settings: Settings, gate: InFlightGate, held: HeldJobs,
         beforeFirstTake: @escaping @Sendable (_ isStopping: () -> Bool) -> Void, handle: @escaping Handler) {
        self.settings = settings
        self.gate = gate
        self.held = held
        self.beforeFirstTake = beforeFirstTake
        self.handle = handle
    }

    func start() {
        thread.start { [self] in run() }
    }

    /// Stops taking jobs; returns once the thread has handled its last batch.
    func stop() {
        thread.stop()
    }

    private var isStopping: Bool { thread.isStopping }

    private func run() {
        beforeFirstTake { isStopping }
        let redis = ReconnectingRedis(url: settings.url, role: "intake", shouldStop: { [self] in isStopping })
        var reconcile = false
        while !isStopping {
            let free = gate.waitForFreeSlots(timeout: 0.5)
            guard free > 0, !isStopping else { continue }
            let jobs: [QueueCommands.Taken]
            do {
                jobs = try redis.run { conn throws(RedisError) in
                    if reconcile {
                        try returnUnknownJobs(conn)
                        reconcile = false
                    }
                    do throws(RedisError) {
                        return try take(upTo: min(free, settings.maxBatch), conn)
                    } catch {
                        // The move may have happened with its reply lost or unreadable: check
                        // the processing lists against what we hold before taking again.
                        reconcile = true
                        throw error
                    }
                }
            } catch {
                if !isStopping {
                    Log.error("intake: \(error)")
                    Thread.sleep(forTimeInterval: 1)
                }
                continue
            }
            guard !jobs.isEmpty else { continue }
            gate.acquire(jobs.count)
            for job in jobs { held.add(job.raw, queue: job.queue) }
            handle(jobs, redis)
        }
    }

    /// Highest non-empty list first, in one round trip; when all are empty, block briefly.
    private func take(upTo count: Int, _ conn: RedisConnection) throws(RedisError) -> [QueueCommands.Taken] {
        let s = settings
        let batch = try QueueCommands.batch(
            from: conn.command(QueueCommands.takeBatch(s.keys, worker: s.worker, count: count, order: s.order)), order: s.order)
        if !batch.isEmpty { return batch }
        guard let one = try QueueCommands.blocking(
            from: conn.command(QueueCommands.takeBlocking(s.keys, worker: s.worker, timeout: s.blockTimeout, order: s.order)))
        else { return [] }
        // Invalid UTF-8 decodes with U+FFFD: if the stored bytes really are invalid, the
        // script dead-letters them (they could never be acknowledged by this string).
        if one.raw.unicodeScalars.contains("\u{FFFD}"),
           try conn.command(QueueCommands.checkBlockingTake(s.keys, worker: s.worker)).check().integer == 1 {
            Log.warning("dead-lettered a job that is not valid UTF-8")
            return []
        }
        return [one]
    }

    private func returnUnknownJobs(_ conn: RedisConnection) throws(RedisError) {
        let s = settings
        for queue in Job.Priority.allCases {
            let list = s.keys.processing(worker: s.worker, queue)
            let present = try conn.command(["LRANGE", list, "0", "-1"]).check().array?.compactMap(\.string) ?? []
            guard !present.isEmpty else { continue }
            let commands = MaintenanceCommands.reconcile(list: present, known: held.jobs(in: queue), processing: list, queue: s.keys.queue(queue))
            if !commands.isEmpty {
                _ = try conn.pipeline(commands)
                Log.warning("intake: returned \(commands.count) job(s) whose take reply was lost")
            }
        }
    }
}
