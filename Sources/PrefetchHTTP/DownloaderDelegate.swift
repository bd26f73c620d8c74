import PrefetchCore

/// Where a transfer's body is written: an open file the downloader closes when done.
public struct TransferDestination: Sendable {
    public let fileDescriptor: Int32
    public let path: String

    public init(fileDescriptor: Int32, path: String) {
        self.fileDescriptor = fileDescriptor
        self.path = path
    }
}

/// The worker's side of the downloader. Every method is called on the downloader's
/// thread; keep them short (no network, no blocking on other threads).
public protocol DownloaderDelegate: AnyObject, Sendable {
    /// Opens the file the body streams into when the transfer `job` leads starts.
    func destination(for job: PendingJob) throws -> TransferDestination
    /// A transfer started for `jobs` (so far; more may join).
    func transferStarted(key: String, jobs: [PendingJob])
    /// A transfer ended. `leader` is the job that started it (its URL, headers and
    /// validators were used); `jobs` holds every job still sharing it, which may be none if
    /// they all expired. `destination` is closed; it is `nil` when it could not be opened.
    func transferFinished(key: String, leader: PendingJob, destination: TransferDestination?, response: TransferResponse, jobs: [PendingJob])
    /// Jobs whose `expires_at` passed while they waited or shared a running transfer;
    /// they are out of the scheduler, and any transfer goes on for the others.
    func jobsExpired(_ jobs: [PendingJob])
}
