/// The single result of one job. Events, the failed set and acknowledgements are all
/// written from this value, in one place (the outcome writer).
public struct Outcome: Sendable {
    public enum Source: String, Sendable {
        /// Downloaded from the origin by this worker.
        case network
        /// Already in the cache; nothing was downloaded.
        case cache
    }

    public struct Completion: Sendable {
        public let source: Source
        public let path: String
        public let bytes: Int
        public let httpStatus: Int?
        public let contentType: String?

        public init(source: Source, path: String, bytes: Int, httpStatus: Int?, contentType: String?) {
            self.source = source
            self.path = path
            self.bytes = bytes
            self.httpStatus = httpStatus
            self.contentType = contentType
        }
    }

    public enum Result: Sendable {
        case completed(Completion)
        case failed(Failure)
        /// The job could not be parsed; it goes to the dead-letter list.
        case deadLettered(reason: String)
        /// Not processed (the worker is stopping); the job goes back to the queue.
        case returnToQueue
    }

    /// The string taken from the queue, removed from the processing list once recorded.
    public let rawJob: String
    /// `nil` only for dead-lettered jobs.
    public let job: Job?
    public let result: Result
    public let durationSeconds: Double

    public init(rawJob: String, job: Job?, result: Result, durationSeconds: Double) {
        self.rawJob = rawJob
        self.job = job
        self.result = result
        self.durationSeconds = durationSeconds
    }
}
