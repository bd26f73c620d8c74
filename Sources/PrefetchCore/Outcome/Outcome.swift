/// The single result of one job. Events, the failed set and acknowledgements are all
/// written from this value, in one place (the outcome writer).
public struct Outcome: Sendable {
    public enum Source: String, Sendable {
        /// Downloaded from the origin by this worker.
        case network
        /// Already in the cache; nothing was downloaded.
        case cache
        /// Joined a transfer another job for the same key had started in this worker.
        case coalesced
        /// The cached body was confirmed by the origin (304 Not Modified) and kept.
        case revalidated
    }

    public struct Completion: Sendable {
        public var source: Source
        public let path: String
        public let bytes: Int
        public let httpStatus: Int?
        public let contentType: String?
        /// Sniffed format and, for verified images, dimensions.
        public var format: String?
        public var width: Int?
        public var height: Int?
        public var thumbnails: [Variant] = []

        public init(source: Source, path: String, bytes: Int, httpStatus: Int?, contentType: String?,
                    format: String? = nil, width: Int? = nil, height: Int? = nil) {
            self.source = source
            self.path = path
            self.bytes = bytes
            self.httpStatus = httpStatus
            self.contentType = contentType
            self.format = format
            self.width = width
            self.height = height
        }
    }

    /// A thumbnail stored as a cache entry of its own.
    public struct Variant: Sendable, Equatable {
        public let size: Int
        public let key: String
        public let path: String
        public let width: Int
        public let height: Int

        public init(size: Int, key: String, path: String, width: Int, height: Int) {
            self.size = size
            self.key = key
            self.path = path
            self.width = width
            self.height = height
        }
    }

    public enum Result: Sendable {
        case completed(Completion)
        case failed(Failure)
        /// The job could not be parsed; it goes to the dead-letter list.
        case deadLettered(reason: String)
        /// Not processed (the worker is stopping); the job goes back to the queue.
        case returnToQueue
        /// Not an outcome: a transfer began (published only when started events are on).
        case started
        /// A transient failure; the job is re-queued as `attempt` after `delay` seconds.
        case retrying(Failure, attempt: Int, delay: Double)
        /// The URL is in the failed set and the job did not ask for `retry_failed`.
        case skipped(reason: String)
        /// Another worker is fetching the same key; the job comes back after `delay`
        /// seconds and is then served from the cache. No event.
        case deferred(delay: Double)
        /// The job's `expires_at` passed before it completed. Not a failure of the URL.
        case expired

        /// Whether this ends the job (everything except `.started`).
        public var isTerminal: Bool {
            if case .started = self { return false }
            return true
        }
    }

    /// The string taken from the queue, removed from the processing list once recorded.
    public let rawJob: String
    /// `nil` only for dead-lettered jobs.
    public let job: Job?
    /// The list the job was taken from; a returned job goes back there.
    public let queue: Job.Priority
    public let result: Result
    /// The job shared a transfer started by another job for the same key.
    public let coalesced: Bool
    public let durationSeconds: Double
    /// For a failure: whether the attempts ran out (the failure was transient).
    public var exhausted = false
    /// A cross-worker lease to release once this outcome is recorded.
    public var leaseKey: String?
    /// The cache key, when the worker's key policy derived it.
    public var key: String?

    public init(rawJob: String, job: Job?, queue: Job.Priority = .normal, result: Result,
                coalesced: Bool = false, durationSeconds: Double) {
        self.rawJob = rawJob
        self.job = job
        self.queue = queue
        self.result = result
        self.coalesced = coalesced
        self.durationSeconds = durationSeconds
    }

    public init(_ pending: PendingJob, _ result: Result, coalesced: Bool = false) {
        self.init(rawJob: pending.job.raw, job: pending.job, queue: pending.queue, result: result,
                  coalesced: coalesced, durationSeconds: -pending.takenAt.timeIntervalSinceNow)
        if result.isTerminal { leaseKey = pending.leaseKey }
        key = pending.key
    }
}
