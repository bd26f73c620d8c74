import Foundation
import PrefetchCache
import PrefetchCore
import PrefetchHTTP
import PrefetchImage

/// Turns finished transfers into cache entries and outcomes, on the downloader's thread:
/// one transfer may complete many jobs (those that joined it), each with its own outcome.
final class TransferHandler: DownloaderDelegate {
    let cache: DiskCache
    let writer: OutcomeWriter
    let retry: RetryPolicy
    let publishStarted: Bool

    init(cache: DiskCache, writer: OutcomeWriter, retry: RetryPolicy, publishStarted: Bool) {
        self.cache = cache
        self.writer = writer
        self.retry = retry
        self.publishStarted = publishStarted
    }

    func destination(forKey key: String) throws -> TransferDestination {
        let temp = try cache.createTemporaryFile(forKey: key)
        return TransferDestination(fileDescriptor: temp.fd, path: temp.path)
    }

    func transferStarted(key: String, jobs: [PendingJob]) {
        guard publishStarted else { return }
        for job in jobs { writer.submit(Outcome(job, .started)) }
    }

    func transferFinished(key: String, destination: TransferDestination?, response: TransferResponse, jobs: [PendingJob]) {
        let result = outcome(key: key, destination: destination, response: response, leader: jobs.first?.job)
        for (index, job) in jobs.enumerated() {
            var own = result
            var exhausted = false
            switch result {
            case .completed(let c) where index > 0:
                own = .completed(.init(source: .coalesced, path: c.path, bytes: c.bytes, httpStatus: c.httpStatus, contentType: c.contentType))
            case .failed(let failure):
                // Each job has its own attempt count, so each gets its own decision.
                switch retry.decide(failure, attempt: job.job.attempt, random: Double.random(in: 0..<1)) {
                case .retry(let attempt, let delay): own = .retrying(failure, attempt: attempt, delay: delay)
                case .exhausted: exhausted = true
                case .permanent: break
                }
            default:
                break
            }
            var outcome = Outcome(job, own, coalesced: index > 0)
            outcome.exhausted = exhausted
            writer.submit(outcome)
        }
    }

    private func outcome(key: String, destination: TransferDestination?, response: TransferResponse, leader: Job?) -> Outcome.Result {
        let discard = { if let destination { self.cache.discard(temporaryPath: destination.path) } }
        if let error = response.error {
            discard()
            return error.reason == .cancelled ? .returnToQueue : .failed(Self.failure(for: error))
        }
        guard (200...299).contains(response.httpStatus) else {
            discard()
            return .failed(.http(status: response.httpStatus, retryAfter: response.retryAfter))
        }
        guard let destination, let leader else { return .failed(Failure(kind: .transient, reason: "no destination")) }
        let entry = cache.layout.paths(forKey: key)
        let metadata = CacheMetadata(
            url: leader.url.string, key: key, size: response.bytes,
            contentType: response.contentType, etag: response.etag, lastModified: response.lastModified,
            httpStatus: response.httpStatus, format: ImageFormat.sniff(response.head).rawValue,
            storedAt: Date().timeIntervalSince1970)
        do {
            try cache.commit(temporaryPath: destination.path, entry: entry, metadata: metadata)
        } catch {
            discard()
            Log.error("cache: \(error)")
            return .failed(Failure(kind: .transient, reason: "cache write failed: \(error)"))
        }
        return .completed(.init(source: .network, path: entry.body, bytes: response.bytes,
                                httpStatus: response.httpStatus, contentType: response.contentType))
    }

    static func failure(for error: TransferError) -> Failure {
        switch error.reason {
        case .curl(_, let transient):
            Failure(kind: transient ? .transient : .permanent, reason: error.message)
        case .bodyTooLarge:
            Failure(kind: .permanent, reason: error.message)
        case .writeFailed, .cancelled:
            // The local disk failed, not the URL.
            Failure(kind: .transient, reason: error.message)
        }
    }
}
