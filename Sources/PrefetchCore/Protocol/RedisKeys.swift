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
    /// Jobs a worker has taken and not yet recorded an outcome for.
    public func processing(worker: String) -> String { prefix + ":processing:" + worker }
}
