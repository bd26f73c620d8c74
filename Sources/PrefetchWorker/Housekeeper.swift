import Foundation
import PrefetchCore
import PrefetchRedis
import Synchronization

/// The worker's periodic duties for the fleet, on its own thread and connection:
/// heartbeat and registration, returning the jobs of dead workers, moving due retries
/// back to their lists, renewing the leases this worker holds, expiring failed entries.
final class Housekeeper: Sendable {
    struct Settings: Sendable {
        var keys: RedisKeys
        var worker: String
        var url: RedisURL
        var heartbeatTTL: Double
        var leaseSeconds: Double
        var maxRecoveries: Int
        var order: ExecutionOrder
        /// Failed-set TTL in seconds; 0 = entries never expire.
        var failedTTL: Double
    }

    private let settings: Settings
    private let held: HeldJobs
    private let thread = DedicatedThread(name: "prefetchd-housekeeper")
    private let registered = DispatchSemaphore(value: 0)

    init(settings: Settings, held: HeldJobs) {
        self.settings = settings
        self.held = held
    }

    func start() {
        thread.start { [self] in run() }
    }

    /// Blocks until the worker's first heartbeat is in Redis (so it is recoverable
    /// before it takes any job).
    /// Gives up (returns false) once `giveUp` says so, e.g. when the worker stops before
    /// Redis was ever reachable.
    @discardableResult
    func waitUntilRegistered(unless giveUp: () -> Bool) -> Bool {
        while registered.wait(timeout: .now() + 0.2) == .timedOut {
            if giveUp() { return false }
        }
        registered.signal()
        return true
    }

    /// Stops the thread and deregisters the worker (call once its lists are empty).
    func stop() {
        thread.stop()
    }

    private func run() {
        let s = settings
        // Stop retrying when stopping: the final deregistration is one bounded attempt.
        let redis = ReconnectingRedis(url: s.url, role: "housekeeper", shouldStop: { [thread] in thread.isStopping })
        var last: [String: Double] = [:]
        func due(_ name: String, every interval: Double, now: Double) -> Bool {
            if now - (last[name] ?? -.infinity) < interval { return false }
            last[name] = now
            return true
        }
        var first = true
        while !thread.isStopping {
            let now = Date().timeIntervalSince1970
            do {
                try redis.run { conn throws(RedisError) in
                    if due("heartbeat", every: s.heartbeatTTL / 3, now: now) {
                        _ = try conn.pipeline(MaintenanceCommands.heartbeat(keys: s.keys, worker: s.worker, ttlSeconds: s.heartbeatTTL))
                    }
                    _ = try conn.command(MaintenanceCommands.moveDueRetries(keys: s.keys, now: now)).check()
                    if due("recover", every: max(0.5, s.heartbeatTTL / 2), now: now) {
                        let reply = try conn.command(MaintenanceCommands.recover(keys: s.keys, worker: s.worker, maxRecoveries: s.maxRecoveries, now: now)).check()
                        if let counts = reply.array?.compactMap(\.integer), counts.count == 2, counts[0] + counts[1] > 0 {
                            Log.warning("recovered \(counts[0]) job(s) from dead workers; dead-lettered \(counts[1]) poison pill(s)")
                        }
                    }
                    if due("leases", every: s.leaseSeconds / 3, now: now) {
                        let leases = held.leases
                        if !leases.isEmpty { _ = try conn.pipeline(MaintenanceCommands.renewLeases(leases, keys: s.keys, worker: s.worker, seconds: s.leaseSeconds)) }
                    }
                    if s.failedTTL > 0, due("failed", every: min(30, max(0.25, s.failedTTL / 2)), now: now) {
                        _ = try conn.command(MaintenanceCommands.expireFailed(keys: s.keys, now: now)).check()
                    }
                }
                if first {
                    first = false
                    registered.signal()
                }
            } catch {
                Log.error("housekeeping: \(error)")
            }
            Thread.sleep(forTimeInterval: 0.25)
        }
        if let replies = try? redis.run({ conn throws(RedisError) in
            try conn.pipeline(MaintenanceCommands.deregister(keys: s.keys, worker: s.worker, order: s.order))
        }), let returned = replies.first?.integer, returned > 0 {
            Log.warning("returned \(returned) job(s) left in the processing lists to their queues")
        }
        if first { registered.signal() }
    }
}
