import Foundation

/// A parsed job on its way through one worker: what was taken, from which list, and when.
public struct PendingJob: Sendable {
    public let job: Job
    /// The Redis list it was taken from; unfinished jobs go back there.
    public let queue: Job.Priority
    public let takenAt: Date
    /// The cross-worker lease this job holds while it is fetched, if any.
    public var leaseKey: String?

    public init(job: Job, queue: Job.Priority, takenAt: Date, leaseKey: String? = nil) {
        self.job = job
        self.queue = queue
        self.takenAt = takenAt
        self.leaseKey = leaseKey
    }

    /// Order inside the worker: the job's own `priority` field if set, else its list's.
    public var priority: Job.Priority { job.priority ?? queue }
}
