import CCurl
import Foundation
import PrefetchCore
import Synchronization

/// The download engine: a scheduler (priorities, FIFO/LIFO, per-URL coalescing, caps and
/// a rate limit) feeding libcurl's multi interface, all on one dedicated thread that owns
/// the multi handle, the scheduler and every transfer. Other threads only drop jobs into
/// an inbox and wake it. Connections and TLS sessions are reused through the multi
/// handle; HTTP/2 is used where the origin offers it over TLS.
public final class Downloader: Sendable {
    public struct Configuration: Sendable {
        /// Transfers running at once. Default: 64.
        public var maxConcurrentTransfers = 64
        /// Transfers (and connections) to one host at once; 0 means no limit. Default: 16.
        public var maxConnectionsPerHost = 16
        /// Order among jobs of equal priority. Default: `.fifo`.
        public var order = ExecutionOrder.fifo
        /// Transfers started per second, at most; 0 means no limit. Default: 0.
        public var requestsPerSecond = 0.0
        /// Seconds to establish a connection. Default: 10.
        public var connectTimeout: Double = 10
        /// Seconds for a whole transfer. Default: 300.
        public var totalTimeout: Double = 300
        /// A transfer slower than `lowSpeedBytesPerSecond` for `lowSpeedSeconds` is aborted.
        /// Default: 1024 bytes/s for 30 s.
        public var lowSpeedBytesPerSecond = 1024
        public var lowSpeedSeconds = 30
        /// Largest body accepted. Refused from Content-Length before the body is read, and
        /// cut off while streaming when the header is absent or lies. Default: 1 GiB.
        public var maxBodyBytes = 1 << 30
        /// Redirects followed before giving up. Default: 5.
        public var maxRedirects = 5
        /// Default: `prefetchd/<version>`.
        public var userAgent = "prefetchd/" + PrefetchVersion.string
        /// PEM bundle of certificate authorities to trust instead of the system's (an
        /// internal CA). Default: `nil`, the system bundle.
        public var caFile: String?

        public init() {}
    }

    struct Handle: @unchecked Sendable {
        let multi: UnsafeMutableRawPointer
    }

    private struct Inbox {
        var jobs: [PendingJob] = []
        var stopping = false
    }

    public let configuration: Configuration
    let delegate: any DownloaderDelegate
    private let handle: Handle
    private let inbox = Mutex(Inbox())
    private let finished = DispatchSemaphore(value: 0)
    private let notStarted = Mutex<[PendingJob]>([])

    public init(configuration: Configuration = Configuration(), delegate: any DownloaderDelegate) throws(CurlError) {
        CurlRuntime.initializeOnce()
        self.configuration = configuration
        self.delegate = delegate
        guard let multi = curl_multi_init() else {
            throw CurlError(code: -1, message: "curl_multi_init returned NULL")
        }
        handle = Handle(multi: multi)
        try CurlError.check(
            prefetch_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost),
            "CURLMOPT_MAX_HOST_CONNECTIONS")
        try CurlError.check(
            prefetch_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(configuration.maxConcurrentTransfers, 8)),
            "CURLMOPT_MAXCONNECTS")
        let thread = Thread { [self] in runLoop() }
        thread.name = "prefetchd-curl"
        thread.start()
    }

    /// Hands a job to the downloader. It joins a transfer for the same cache key if one is
    /// waiting or running, else it waits in the backlog for a free slot.
    public func enqueue(_ job: PendingJob) {
        enqueue(contentsOf: [job])
    }

    /// Hands over a batch with a single wake-up of the downloader thread.
    public func enqueue(contentsOf jobs: [PendingJob]) {
        guard !jobs.isEmpty else { return }
        inbox.withLock { $0.jobs.append(contentsOf: jobs) }
        curl_multi_wakeup(handle.multi)
    }

    /// Stops the thread. Running transfers end with a `.cancelled` error (reported through
    /// the delegate); jobs that never started are returned.
    public func shutdown() -> [PendingJob] {
        let already = inbox.withLock { s in
            defer { s.stopping = true }
            return s.stopping
        }
        guard !already else { return [] }
        curl_multi_wakeup(handle.multi)
        finished.wait()
        return notStarted.withLock { $0 }
    }

    // Accessors for the loop in Downloader+Loop.swift.
    var handleForLoop: Handle { handle }

    func takeInbox() -> (jobs: [PendingJob], stopping: Bool) {
        inbox.withLock { s in
            defer { s.jobs.removeAll(keepingCapacity: true) }
            return (s.jobs, s.stopping)
        }
    }

    func loopEnded(notStarted jobs: [PendingJob]) {
        notStarted.withLock { $0 = jobs }
        finished.signal()
    }
}
