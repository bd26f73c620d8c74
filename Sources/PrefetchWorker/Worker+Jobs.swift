import Foundation
import PrefetchCache
import PrefetchCore
import PrefetchHTTP
import PrefetchImage

extension Worker {
    /// Handles one job taken from the queue. Runs on the intake thread; the download
    /// itself continues on the downloader's thread.
    func process(_ raw: String) {
        let started = Date()
        let job: Job
        do {
            job = try JobParser.parse(raw)
        } catch {
            Log.warning("dead-lettered job: \(error)")
            record(raw, nil, .deadLettered(reason: error.description), started)
            return
        }
        if stopping.load(ordering: .relaxed) {
            record(raw, job, .returnToQueue, started)
            return
        }
        if !job.refresh, let entry = cache.lookup(key: job.cacheKey) {
            let m = entry.metadata
            record(raw, job, .completed(.init(source: .cache, path: entry.paths.body, bytes: m.size,
                                              httpStatus: m.httpStatus, contentType: m.contentType)), started)
            return
        }
        download(job, started: started)
    }

    private func download(_ job: Job, started: Date) {
        let temp: DiskCache.TemporaryFile
        do {
            temp = try cache.createTemporaryFile(forKey: job.cacheKey)
        } catch {
            // The cache is at fault, not the URL: transient, so the URL is never marked failed.
            Log.error("cache: \(error)")
            record(job.raw, job, .failed(Failure(kind: .transient, reason: "cache write failed: \(error)")), started)
            return
        }
        let request = TransferRequest(url: job.url.requestString, fileDescriptor: temp.fd)
        downloader.submit(request) { [self] response in
            finishDownload(job, temp: temp, response: response, started: started)
        }
    }

    /// Runs on the downloader thread once the body file is closed.
    private func finishDownload(_ job: Job, temp: DiskCache.TemporaryFile, response: TransferResponse, started: Date) {
        if let error = response.error {
            cache.discard(temporaryPath: temp.path)
            if error.reason == .cancelled {
                record(job.raw, job, .returnToQueue, started)
            } else {
                record(job.raw, job, .failed(Self.failure(for: error)), started)
            }
            return
        }
        guard (200...299).contains(response.httpStatus) else {
            cache.discard(temporaryPath: temp.path)
            record(job.raw, job, .failed(.http(status: response.httpStatus)), started)
            return
        }
        let metadata = CacheMetadata(
            url: job.url.string, key: job.cacheKey, size: response.bytes,
            contentType: response.contentType, etag: response.etag, lastModified: response.lastModified,
            httpStatus: response.httpStatus, format: ImageFormat.sniff(response.head).rawValue,
            storedAt: Date().timeIntervalSince1970)
        do {
            try cache.commit(temporaryPath: temp.path, entry: temp.entry, metadata: metadata)
        } catch {
            cache.discard(temporaryPath: temp.path)
            Log.error("cache: \(error)")
            record(job.raw, job, .failed(Failure(kind: .transient, reason: "cache write failed: \(error)")), started)
            return
        }
        record(job.raw, job, .completed(.init(source: .network, path: temp.entry.body, bytes: response.bytes,
                                              httpStatus: response.httpStatus, contentType: response.contentType)), started)
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

    private func record(_ raw: String, _ job: Job?, _ result: Outcome.Result, _ started: Date) {
        if case .failed(let f) = result, let job {
            Log.debug("failed \(job.url): \(f.reason)")
        }
        writer.submit(Outcome(rawJob: raw, job: job, result: result, durationSeconds: -started.timeIntervalSinceNow))
    }
}
