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
    let images: ImageProcessor
    let retry: RetryPolicy
    let publishStarted: Bool
    /// Called with the size of each body stored, so eviction can keep up with writers.
    let stored: @Sendable (Int) -> Void

    init(cache: DiskCache, writer: OutcomeWriter, images: ImageProcessor, retry: RetryPolicy, publishStarted: Bool,
         stored: @escaping @Sendable (Int) -> Void) {
        self.cache = cache
        self.images = images
        self.writer = writer
        self.retry = retry
        self.publishStarted = publishStarted
        self.stored = stored
    }

    func destination(for job: PendingJob) throws -> TransferDestination {
        let temp = try cache.createTemporaryFile(forHash: job.keyHash)
        return TransferDestination(fileDescriptor: temp.fd, path: temp.path)
    }

    func transferStarted(key: String, jobs: [PendingJob]) {
        guard publishStarted else { return }
        for job in jobs { writer.submit(Outcome(job, .started)) }
    }

    func transferFinished(key: String, leader: PendingJob, destination: TransferDestination?, response: TransferResponse, jobs: [PendingJob]) {
        let plan = images.plan(for: jobs.isEmpty ? [leader] : jobs)
        let succeeded = response.error == nil && (200...299).contains(response.httpStatus) && destination != nil
        guard succeeded, let destination else {
            distribute(outcome(key: key, destination: destination, response: response, leader: leader), to: jobs)
            return
        }
        // Verification (and thumbnails) may decode: then off this thread, on the image pool.
        images.run(plan) { [self] in
            distribute(store(key: key, temp: destination.path, response: response, leader: leader, plan: plan), to: jobs)
        }
    }

    func jobsExpired(_ jobs: [PendingJob]) {
        writer.submit(contentsOf: jobs.map { Outcome($0, .expired) })
    }

    /// One result for the transfer, turned into one outcome per job that shared it.
    private func distribute(_ result: Outcome.Result, to jobs: [PendingJob]) {
        var outcomes: [Outcome] = []
        outcomes.reserveCapacity(jobs.count)
        defer { writer.submit(contentsOf: outcomes) }
        for (index, job) in jobs.enumerated() {
            var own = result
            var exhausted = false
            switch result {
            case .completed(var c) where index > 0:
                if c.source == .network { c.source = .coalesced }
                own = .completed(c)
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
            outcomes.append(outcome)
        }
    }

    /// Everything but a stored body: errors, HTTP failures, 304s.
    private func outcome(key: String, destination: TransferDestination?, response: TransferResponse, leader: PendingJob?) -> Outcome.Result {
        let discard = { if let destination { self.cache.discard(temporaryPath: destination.path) } }
        if let error = response.error {
            discard()
            return error.reason == .cancelled ? .returnToQueue : .failed(Self.failure(for: error))
        }
        if response.httpStatus == 304 {
            discard()
            guard leader?.validators != nil else {
                // A 304 we did not ask for (the job sent its own conditional headers): no body.
                return .failed(Failure(kind: .transient, reason: "HTTP 304 without a cached copy to keep", httpStatus: 304))
            }
            return revalidated(key: key, response: response, leader: leader)
        }
        discard()
        if (200...299).contains(response.httpStatus) {
            return .failed(Failure(kind: .transient, reason: "the body file could not be opened"))
        }
        return .failed(.http(status: response.httpStatus, retryAfter: response.retryAfter))
    }

    /// A 2xx body: verify it, store it, prepare thumbnails.
    private func store(key: String, temp: String, response: TransferResponse, leader: PendingJob, plan: ImageProcessor.Plan) -> Outcome.Result {
        let info: ImageInfo
        do {
            info = try images.verify(fileAt: temp, body: response.body, plan)
        } catch {
            cache.discard(temporaryPath: temp)
            // A body that fails verification is the origin's fault: permanent, never cached.
            return .failed(Failure(kind: .permanent, reason: "verification failed: \(error)", httpStatus: response.httpStatus))
        }
        let now = Date().timeIntervalSince1970
        var metadata = CacheMetadata(
            url: leader.job.url.string, key: key, size: response.bytes, sha256: response.sha256,
            contentType: response.contentType, etag: response.etag, lastModified: response.lastModified,
            httpStatus: response.httpStatus, format: info.format.rawValue,
            width: info.width > 0 ? info.width : nil, height: info.height > 0 ? info.height : nil,
            storedAt: now, validatedAt: now)
        metadata.verified = plan.level.rawValue
        let entry: CacheEntry
        do {
            entry = try cache.commit(temporaryPath: temp, hash: leader.keyHash, metadata: metadata)
        } catch {
            cache.discard(temporaryPath: temp)
            Log.error("cache: \(error)")
            return .failed(Failure(kind: .transient, reason: "cache write failed: \(error)"))
        }
        stored(response.bytes)
        var completion = Outcome.Completion(source: .network, path: entry.bodyPath, bytes: response.bytes,
                                            httpStatus: response.httpStatus, contentType: response.contentType,
                                            format: metadata.format, width: metadata.width, height: metadata.height)
        completion.thumbnails = images.thumbnails(of: entry, plan)
        return .completed(completion)
    }

    /// 304 Not Modified: keep the body, record the confirmation and any new validators.
    private func revalidated(key: String, response: TransferResponse, leader: PendingJob?) -> Outcome.Result {
        guard let expected = leader?.validators?.body,
              let entry = leader.map({ cache.lookup(hash: $0.keyHash) }) ?? cache.lookup(key: key),
              entry.metadata.body == expected else {
            // Evicted or replaced while we asked: the 304 confirms a body that is gone.
            return .failed(Failure(kind: .transient, reason: "cached entry changed during revalidation"))
        }
        var metadata = entry.metadata
        metadata.validatedAt = Date().timeIntervalSince1970
        if let etag = response.etag { metadata.etag = etag }
        if let lastModified = response.lastModified { metadata.lastModified = lastModified }
        do {
            let updated = try cache.updateMetadata(of: entry, to: metadata)
            return .completed(.init(source: .revalidated, path: updated.bodyPath, bytes: metadata.size,
                                    httpStatus: 304, contentType: metadata.contentType,
                                    format: metadata.format, width: metadata.width, height: metadata.height))
        } catch {
            return .failed(Failure(kind: .transient, reason: "cache update failed: \(error)"))
        }
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
