/// Every Redis key prefetchd reads or writes, derived from one prefix (default `prefetch`).
/// Users and their scripts rely on these names: see docs/protocol.md before changing one.
public struct RedisKeys: Sendable, Equatable {
    public let prefix: String

    public init(prefix: String = "prefetch") {
        self.prefix = prefix
    }

    /// The list users `LPUSH` jobs onto (normal priority).
    public var queue: String { prefix + ":queue" }
    /// The list for one priority: `:queue:high`, `:queue`, `:queue:low`.
    public func queue(_ priority: Job.Priority) -> String {
        switch priority {
        case .high: prefix + ":queue:high"
        case .normal: prefix + ":queue"
        case .low: prefix + ":queue:low"
        }
    }
    /// Pub/sub channel carrying one JSON event per outcome.
    public var events: String { prefix + ":events" }
    /// Capped stream holding the same events, for consumers that were not subscribed.
    public var eventLog: String { prefix + ":events:log" }
    /// Set of URLs that failed for a permanent reason.
    public var failed: String { prefix + ":failed" }
    /// Hash: failed URL → JSON record with the reason, status and time.
    public var failedReasons: String { prefix + ":failed:reasons" }
    /// List of jobs that could not be parsed, each with its reason.
    public var dead: String { prefix + ":dead" }
    /// Jobs a worker has taken from one list and not yet recorded an outcome for.
    public func processing(worker: String, _ priority: Job.Priority = .normal) -> String {
        prefix + ":processing:" + worker + (priority == .normal ? "" : ":" + priority.name)
    }
    /// Sorted set: retry entries (JSON `{"id","queue","job"}`) scored by due time (Unix ms).
    public var retry: String { prefix + ":retry" }
    /// Set of registered worker ids.
    public var workers: String { prefix + ":workers" }
    /// A worker's heartbeat: exists while the worker is alive (it has a TTL).
    public func heartbeat(worker: String) -> String { prefix + ":worker:" + worker }
    /// Hash: job → how many times it was recovered from a dead worker.
    public var recoveries: String { prefix + ":recoveries" }
    /// Sorted set: failed URL → when its failed-set entry expires (Unix ms).
    public var failedExpiry: String { prefix + ":failed:expiry" }
    /// Held while one worker fetches a key, so other workers wait instead of fetching it too.
    public func lease(keyHash: String) -> String { prefix + ":lease:" + keyHash }
    /// Set of the lease keys one worker holds, so recovery can free a dead worker's leases.
    public func leases(worker: String) -> String { prefix + ":leases:" + worker }
    /// Held by the worker running the periodic cache sweep.
    public var sweepLease: String { prefix + ":sweep" }
}
