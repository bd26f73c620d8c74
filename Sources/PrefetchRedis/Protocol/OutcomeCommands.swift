import PrefetchCore

/// Turns outcomes into the Redis commands that record them. Every outcome is written
/// here and nowhere else: event on the channel and in the stream, failed set, dead-letter
/// list, retry schedule, lease release, and finally the acknowledgement that removes the
/// job from the processing list.
public struct OutcomeCommands: Sendable {
    public struct Configuration: Sendable {
        /// Approximate cap on the event stream (`XADD ... MAXLEN ~`). Default: 100,000.
        public var eventLogMaxLength = 100_000
        /// Seconds a failed-set entry lasts; 0 keeps it until removed. Default: 0.
        public var failedTTL = 0.0
        /// Whether a transient failure that used up its attempts enters the failed set.
        /// Default: false (an offline spell must not block URLs).
        public var failExhausted = false
        public init() {}
    }

    public let keys: RedisKeys
    public let worker: String
    public let configuration: Configuration
    /// Returned jobs go back to the end of their list this worker's order takes from next.
    public let order: ExecutionOrder

    public init(keys: RedisKeys, worker: String, order: ExecutionOrder = .fifo, configuration: Configuration = Configuration()) {
        self.keys = keys
        self.worker = worker
        self.order = order
        self.configuration = configuration
    }

    /// Deletes lease KEYS[1] only if it still holds ARGV[1] (ours, not a successor's), and
    /// forgets it in this worker's lease set KEYS[2].
    static let releaseLeaseScript = """
        redis.call('SREM', KEYS[2], KEYS[1])
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """

    /// Everything for one outcome, the acknowledgement last.
    public func commands(for outcome: Outcome, time: Double) -> [[String]] {
        record(outcome, time: time) + (ack(outcome).map { [$0] } ?? [])
    }

    /// The acknowledgement that removes the job from the processing list: sent only once
    /// every command of `record` succeeded, so a refused push (a full or read-only Redis)
    /// never loses the job. `nil` for events that end nothing (`started`).
    public func ack(_ outcome: Outcome) -> [String]? {
        guard outcome.result.isTerminal else { return nil }
        return ["LREM", keys.processing(worker: worker, outcome.queue), "1", outcome.rawJob]
    }

    /// What records an outcome: event, failed set, dead letter, retry, lease release.
    public func record(_ outcome: Outcome, time: Double) -> [[String]] {
        var commands: [[String]] = []
        switch outcome.result {
        case .returnToQueue:
            // Back to the end this worker takes from, so it is taken next.
            commands.append([order == .fifo ? "RPUSH" : "LPUSH", keys.queue(outcome.queue), outcome.rawJob])
        case .deferred(let delay):
            commands.append(schedule(outcome.rawJob, queue: outcome.queue, at: time + delay))
        case .started:
            commands += publish(outcome, time: time)
        case .retrying(_, let attempt, let delay):
            commands += publish(outcome, time: time)
            if let job = outcome.job {
                commands.append(schedule(JobParser.raw(job, forAttempt: attempt), queue: outcome.queue, at: time + delay))
            }
        case .failed(let failure):
            commands += publish(outcome, time: time)
            if failure.kind == .permanent || (outcome.exhausted && configuration.failExhausted), let job = outcome.job {
                commands += markFailed(job.url.string, failure, attempts: job.attempt, time: time)
            }
        case .deadLettered(let reason):
            commands += publish(outcome, time: time)
            commands.append(["LPUSH", keys.dead, Event.deadLetterJSON(rawJob: outcome.rawJob, reason: reason, worker: worker, time: time)])
        case .completed:
            commands += publish(outcome, time: time)
            if let job = outcome.job, job.retryFailed {
                commands += clearFailed(job.url.string)
            }
        case .skipped, .expired:
            commands += publish(outcome, time: time)
        }
        if let lease = outcome.leaseKey {
            commands.append(["EVAL", Self.releaseLeaseScript, "2", lease, keys.leases(worker: worker), worker])
        }
        return commands
    }

    private func publish(_ outcome: Outcome, time: Double) -> [[String]] {
        let event = Event.json(for: outcome, worker: worker, time: time)
        return [
            ["PUBLISH", keys.events, event],
            ["XADD", keys.eventLog, "MAXLEN", "~", String(configuration.eventLogMaxLength), "*", "event", event],
        ]
    }

    /// A retry entry: unique (so identical jobs never collapse into one), with its list.
    private func schedule(_ raw: String, queue: Job.Priority, at due: Double) -> [String] {
        var w = JSONWriter()
        w.field("id", String(UInt64.random(in: 0...UInt64.max), radix: 36))
        w.field("queue", queue.name)
        w.field("job", raw)
        return ["ZADD", keys.retry, String(Int64(due * 1000)), w.finish()]
    }

    private func markFailed(_ url: String, _ failure: Failure, attempts: Int, time: Double) -> [[String]] {
        var c = [
            ["SADD", keys.failed, url],
            ["HSET", keys.failedReasons, url, Event.failureRecordJSON(failure, attempts: attempts, worker: worker, time: time)],
        ]
        if configuration.failedTTL > 0 {
            c.append(["ZADD", keys.failedExpiry, String(Int64((time + configuration.failedTTL) * 1000)), url])
        }
        return c
    }

    public func clearFailed(_ url: String) -> [[String]] {
        [["SREM", keys.failed, url], ["HDEL", keys.failedReasons, url], ["ZREM", keys.failedExpiry, url]]
    }
}
