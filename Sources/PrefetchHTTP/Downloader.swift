import CCurl
import Foundation
import PrefetchCore
import Synchronization

/// Runs HTTP transfers with libcurl's multi interface on one dedicated thread, which owns
/// the multi handle and every transfer. Other threads only enqueue work and wake it.
/// Connections (and TLS sessions) are reused through the multi handle's connection cache.
public final class Downloader: Sendable {
    public struct Configuration: Sendable {
        /// Transfers running at once. Default: 64.
        public var maxConcurrentTransfers = 64
        /// Connections to one host at once; 0 means no limit. Default: 16.
        public var maxConnectionsPerHost = 16
        /// Seconds to establish a connection. Default: 10.
        public var connectTimeout: Double = 10
        /// Seconds for a whole transfer. Default: 300.
        public var totalTimeout: Double = 300
        /// A transfer slower than `lowSpeedBytesPerSecond` for `lowSpeedSeconds` is aborted.
        /// Default: 1024 bytes/s for 30 s.
        public var lowSpeedBytesPerSecond = 1024
        public var lowSpeedSeconds = 30
        /// Largest body accepted. Refused from Content-Length, and cut off while streaming
        /// when the header is absent or wrong. Default: 1 GiB.
        public var maxBodyBytes = 1 << 30
        /// Redirects followed before giving up. Default: 5.
        public var maxRedirects = 5
        /// Default: `prefetchd/<version>`.
        public var userAgent = "prefetchd/" + PrefetchVersion.string

        public init() {}
    }

    struct Handle: @unchecked Sendable {
        let multi: UnsafeMutableRawPointer
    }

    private struct State {
        var pending: [Transfer] = []
        var stopping = false
    }

    public let configuration: Configuration
    private let handle: Handle
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    public init(configuration: Configuration = Configuration()) throws(CurlError) {
        CurlRuntime.initializeOnce()
        self.configuration = configuration
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

    /// Queues a transfer. `completion` runs on the downloader's thread after the
    /// file descriptor has been closed; keep it short.
    public func submit(_ request: TransferRequest, completion: @escaping @Sendable (TransferResponse) -> Void) {
        let transfer = Transfer(request: request, maxBodyBytes: configuration.maxBodyBytes, completion: completion)
        state.withLock { $0.pending.append(transfer) }
        curl_multi_wakeup(handle.multi)
    }

    /// Aborts what is still running (each gets an error response) and stops the thread.
    public func shutdown() {
        let already = state.withLock { s in
            defer { s.stopping = true }
            return s.stopping
        }
        guard !already else { return }
        curl_multi_wakeup(handle.multi)
        finished.wait()
    }

    // Accessors for the loop in Downloader+Loop.swift.
    var handleForLoop: Handle { handle }

    func takePending(limit: Int = .max) -> ([Transfer], Bool) {
        state.withLock { s in
            guard limit > 0 else { return ([], s.stopping) }
            let count = min(limit, s.pending.count)
            let taken = Array(s.pending.prefix(count))
            s.pending.removeFirst(count)
            return (taken, s.stopping)
        }
    }

    var hasPending: Bool { state.withLock { !$0.pending.isEmpty } }

    func signalFinished() { finished.signal() }
}
