import Foundation
import PrefetchCache
import PrefetchCore
import PrefetchRedis

extension Worker {
    /// Handles one job taken from Redis, on the intake thread: parse, look it up in the
    /// cache (a hit never takes a transfer slot), else hand it to the downloader.
    func process(_ taken: QueueCommands.Taken) {
        let takenAt = Date()
        let job: Job
        do {
            job = try JobParser.parse(taken.raw)
        } catch {
            Log.warning("dead-lettered job: \(error)")
            writer.submit(Outcome(rawJob: taken.raw, job: nil, queue: taken.queue,
                                  result: .deadLettered(reason: error.description), durationSeconds: 0))
            return
        }
        let pending = PendingJob(job: job, queue: taken.queue, takenAt: takenAt)
        if stopping.load(ordering: .relaxed) {
            writer.submit(Outcome(pending, .returnToQueue))
            return
        }
        if !job.refresh, let entry = cache.lookup(key: job.cacheKey) {
            let m = entry.metadata
            writer.submit(Outcome(pending, .completed(.init(source: .cache, path: entry.paths.body, bytes: m.size,
                                                            httpStatus: m.httpStatus, contentType: m.contentType))))
            return
        }
        downloader.enqueue(pending)
    }
}
