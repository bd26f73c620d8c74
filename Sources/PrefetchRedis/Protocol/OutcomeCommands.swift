import PrefetchCore

/// Turns outcomes into the Redis commands that record them. Every outcome is written
/// here and nowhere else: event on the channel and in the stream, failed set, dead-letter
/// list, and finally the acknowledgement that removes the job from the processing list.
public struct OutcomeCommands: Sendable {
    public struct Configuration: Sendable {
        /// Approximate cap on the event stream (`XADD ... MAXLEN ~`). Default: 100,000.
        public var eventLogMaxLength = 100_000
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

    public func commands(for outcome: Outcome, time: Double) -> [[String]] {
        let processing = keys.processing(worker: worker)
        if case .returnToQueue = outcome.result {
            // Back to the end this worker takes from, so it is taken next.
            let push = order == .fifo ? "RPUSH" : "LPUSH"
            return [[push, keys.queue(outcome.queue), outcome.rawJob], ["LREM", processing, "1", outcome.rawJob]]
        }
        let event = Event.json(for: outcome, worker: worker, time: time)
        var commands: [[String]] = [
            ["PUBLISH", keys.events, event],
            ["XADD", keys.eventLog, "MAXLEN", "~", String(configuration.eventLogMaxLength), "*", "event", event],
        ]
        if case .started = outcome.result { return commands }
        switch outcome.result {
        case .failed(let failure) where failure.kind == .permanent:
            if let url = outcome.job?.url.string {
                commands.append(["SADD", keys.failed, url])
                commands.append(["HSET", keys.failedReasons, url, Event.failureRecordJSON(failure, worker: worker, time: time)])
            }
        case .deadLettered(let reason):
            commands.append(["LPUSH", keys.dead, Event.deadLetterJSON(rawJob: outcome.rawJob, reason: reason, worker: worker, time: time)])
        default:
            break
        }
        commands.append(["LREM", processing, "1", outcome.rawJob])
        return commands
    }
}
