import Foundation
import PrefetchCache
import PrefetchCore
import PrefetchRedis
import Synchronization

/// Sweeps the shared cache on its own thread: every `interval`, or sooner once this worker
/// has written a tenth of the size limit, so limits hold while workers run. A lease in
/// Redis (`<prefix>:sweep`, kept for a quarter of the interval and not released) means one
/// sweep per quarter interval across the whole fleet, however many workers share the cache.
final class CacheJanitor: Sendable {
    struct Settings: Sendable {
        var keys: RedisKeys
        var worker: String
        var url: RedisURL
        var root: String
        var limits: CacheSweeper.Limits
        var interval: Double
    }

    private let settings: Settings
    private let writtenSinceSweep = Atomic<Int>(0)
    private let thread = DedicatedThread(name: "prefetchd-janitor")
    private let wake = DispatchSemaphore(value: 0)

    init(settings: Settings) {
        self.settings = settings
    }

    func start() {
        thread.start { [self] in run() }
    }

    func stop() {
        thread.stop { wake.signal() }
    }

    /// Called as bodies are stored; wakes the sweep early when writes approach the limit.
    func noteStored(_ bytes: Int) {
        let total = writtenSinceSweep.add(bytes, ordering: .relaxed).newValue
        let limit = settings.limits.maxBytes
        if limit > 0, Int64(total) >= limit / 10, Int64(total - bytes) < limit / 10 { wake.signal() }
    }

    private func run() {
        let s = settings
        let redis = ReconnectingRedis(url: s.url, role: "janitor", shouldStop: { [thread] in thread.isStopping })
        let sweeper = CacheSweeper(root: s.root, limits: s.limits)
        while !thread.isStopping {
            _ = wake.wait(timeout: .now() + s.interval)
            if thread.isStopping { break }
            let leaseMs = String(Int(max(s.interval / 4, 1) * 1000))
            let acquired = (try? redis.run { conn throws(RedisError) in
                try conn.command(["SET", s.keys.sweepLease, s.worker, "NX", "PX", leaseMs]).check()
            }) == .status("OK")
            guard acquired else { continue }
            writtenSinceSweep.store(0, ordering: .relaxed)
            let started = Date()
            let report = sweeper.sweep()
            let level = report.removedEntries + report.removedTemporaries + report.removedOrphans > 0 ? Log.Level.info : .debug
            let line = "cache sweep in \(String(format: "%.2f", -started.timeIntervalSinceNow)) s: \(report)"
            if level == .info { Log.info(line) } else { Log.debug(line) }
        }
    }
}
