import Foundation

/// A parsed job on its way through one worker: what was taken, from which list, and when.
public struct PendingJob: Sendable {
    public let job: Job
    /// The Redis list it was taken from; unfinished jobs go back there.
    public let queue: Job.Priority
    public let takenAt: Date
    /// The cache key (the job's `key`, else its URL filtered by the worker's key policy).
    public let key: String
    /// Hex SHA-256 of `key`, computed once: it names the entry's files and its lease.
    public let keyHash: String
    /// The cross-worker lease this job holds while it is fetched, if any.
    public var leaseKey: String?
    /// Set when the cached copy should be revalidated with a conditional request.
    public var validators: Validators?

    public struct Validators: Sendable, Equatable {
        public let etag: String?
        public let lastModified: String?
        /// The body file these validators describe; a 304 may only confirm that one.
        public let body: String

        public init(etag: String?, lastModified: String?, body: String) {
            self.etag = etag
            self.lastModified = lastModified
            self.body = body
        }

        /// `If-None-Match` and `If-Modified-Since` headers.
        public var headers: [String: String] {
            var h: [String: String] = [:]
            if let etag { h["If-None-Match"] = etag }
            if let lastModified { h["If-Modified-Since"] = lastModified }
            return h
        }
    }

    public init(job: Job, queue: Job.Priority, takenAt: Date, key: String, keyHash: String, leaseKey: String? = nil) {
        self.job = job
        self.queue = queue
        self.takenAt = takenAt
        self.key = key
        self.keyHash = keyHash
        self.leaseKey = leaseKey
    }

    /// Order inside the worker: the job's own `priority` field if set, else its list's.
    public var priority: Job.Priority { job.priority ?? queue }
}
