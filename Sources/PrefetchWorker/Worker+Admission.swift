import Foundation
import PrefetchCache
import PrefetchCore
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
            let pending = PendingJob(job: job, queue: taken.queue, takenAt: takenAt)
            if stopping.load(ordering: .relaxed) {
                writer.submit(Outcome(pending, .returnToQueue))
            } else if !servedFromCache(pending) {
                candidates.append(pending)
            }
        }
        guard !candidates.isEmpty else { return }

        let c = configuration
        let leaseKeys = candidates.map { c.keys.lease(keyHash: cache.layout.paths(forKey: $0.job.cacheKey).hash) }
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
                if !servedFromCache(pending) { downloader.enqueue(pending) }
            }
        }
    }

    private func servedFromCache(_ pending: PendingJob) -> Bool {
        guard !pending.job.refresh, let entry = cache.lookup(key: pending.job.cacheKey) else { return false }
        let m = entry.metadata
        writer.submit(Outcome(pending, .completed(.init(source: .cache, path: entry.paths.body, bytes: m.size,
                                                        httpStatus: m.httpStatus, contentType: m.contentType))))
        return true
    }
}
