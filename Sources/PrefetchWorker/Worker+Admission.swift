import Foundation
import PrefetchCache
import PrefetchCore
import PrefetchImage
import PrefetchRedis

extension Worker {
    /// Handles a batch taken from Redis, on the intake thread: parse (invalid jobs are
    /// dead-lettered), serve cache hits (a hit never takes a transfer slot), then one round
    /// trip decides for the rest: skip URLs in the failed set, wait for keys another worker
    /// is fetching, and fetch the others under this worker's lease.
    func admit(_ batch: [QueueCommands.Taken], redis: ReconnectingRedis) {
        let takenAt = Date()
        var candidates: [PendingJob] = []
        for taken in batch {
            let job: Job
            do {
                job = try JobParser.parse(taken.raw)
            } catch {
                Log.warning("dead-lettered job: \(error)")
                writer.submit(Outcome(rawJob: taken.raw, job: nil, queue: taken.queue,
                                      result: .deadLettered(reason: error.description), durationSeconds: 0))
                continue
            }
            let key = configuration.keyPolicy.key(for: job)
            var pending = PendingJob(job: job, queue: taken.queue, takenAt: takenAt, key: key, keyHash: SHA256.hex(key))
            if stopping.load(ordering: .relaxed) {
                writer.submit(Outcome(pending, .returnToQueue))
            } else if job.isExpired(at: takenAt.timeIntervalSince1970) {
                writer.submit(Outcome(pending, .expired))
            } else if !serveFromCache(&pending) {
                candidates.append(pending)
            }
        }
        guard !candidates.isEmpty else { return }

        let c = configuration
        let leaseKeys = candidates.map { c.keys.lease(keyHash: $0.keyHash) }
        let admission = zip(candidates, leaseKeys).map {
            AdmissionCommands.Candidate(url: $0.job.url.string, leaseKey: $1, retryFailed: $0.job.retryFailed)
        }
        let verdicts: [AdmissionCommands.Verdict]
        do {
            verdicts = try redis.run { conn throws(RedisError) in
                try AdmissionCommands.verdicts(
                    from: conn.command(AdmissionCommands.admit(admission, keys: c.keys, worker: c.workerID, leaseSeconds: c.leaseSeconds)),
                    count: admission.count)
            }
        } catch {
            // Not a connection problem (those are retried): fetch without the checks rather than lose the jobs.
            Log.error("admission: \(error)")
            verdicts = Array(repeating: .proceed, count: candidates.count)
        }

        var fetch: [PendingJob] = []
        defer { downloader.enqueue(contentsOf: fetch) }
        for ((var pending, leaseKey), verdict) in zip(zip(candidates, leaseKeys), verdicts) {
            switch verdict {
            case .failedBefore:
                writer.submit(Outcome(pending, .skipped(reason: "URL is in the failed set; send retry_failed to fetch it again")))
            case .leasedElsewhere:
                writer.submit(Outcome(pending, .deferred(delay: c.deferDelay * Double.random(in: 1...1.5))))
            case .proceed:
                pending.leaseKey = leaseKey
                held.retainLease(leaseKey)
                // Another worker may have finished it between our cache lookup and the lease.
                if !serveFromCache(&pending) { fetch.append(pending) }
            }
        }
    }

    /// Completes the job from the cache if it holds a fresh entry. A `refresh` job, or an
    /// entry older than `revalidateAfter`, is instead marked for a conditional request.
    private func serveFromCache(_ pending: inout PendingJob) -> Bool {
        guard let entry = cache.lookup(hash: pending.keyHash) else {
            pending.validators = nil
            return false
        }
        let m = entry.metadata
        let age = Date().timeIntervalSince1970 - (m.validatedAt ?? m.storedAt)
        if pending.job.refresh || (configuration.revalidateAfter > 0 && age > configuration.revalidateAfter) {
            pending.validators = (m.etag == nil && m.lastModified == nil)
                ? nil : PendingJob.Validators(etag: m.etag, lastModified: m.lastModified, body: m.body)
            return false
        }
        // The entry must have passed this job's checks: a stricter level or an image
        // expectation the stored body was never held to makes it a miss (fetched and checked).
        let plan = images.plan(for: [pending])
        let passed = m.verified.flatMap(VerificationLevel.init(rawValue:)) ?? .none
        let format = m.format.flatMap(ImageFormat.init(rawValue:)) ?? .unknown
        if (plan.expectImage && !format.isImage) || (plan.level > passed && format.isVerifiable) {
            pending.validators = nil
            return false
        }
        cache.touch(entry)
        let completion = Outcome.Completion(source: .cache, path: entry.bodyPath, bytes: m.size, httpStatus: m.httpStatus,
                                            contentType: m.contentType, format: m.format, width: m.width, height: m.height)
        if plan.thumbnails.isEmpty {
            writer.submit(Outcome(pending, .completed(completion)))
        } else {
            // Thumbnails missing from the cache are made now (existing ones are reused).
            let (images, writer, job, base) = (self.images, self.writer, pending, completion)
            images.run(plan) {
                var completion = base
                completion.thumbnails = images.thumbnails(of: entry, plan)
                writer.submit(Outcome(job, .completed(completion)))
            }
        }
        return true
    }
}
