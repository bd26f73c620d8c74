import CCurl
import Foundation
import PrefetchCore

extension Downloader {
    func runLoop() {
        TransferLoop(downloader: self).run()
    }
}

/// The state of the downloader's thread: the scheduler, the rate limiter, the running
/// transfers and a pool of reusable easy handles. Created on that thread and never shared.
final class TransferLoop {
    private let downloader: Downloader
    private let multi: UnsafeMutableRawPointer
    private let configuration: Downloader.Configuration
    private var scheduler: Scheduler<PendingJob>
    private var limiter: RateLimiter
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    private var idle: [UnsafeMutableRawPointer] = []
    private let clockStart = Date()
    /// Jobs with an `expires_at` in the scheduler; expiry is only checked while there are some.
    private var expiring = 0
    private var lastExpiryCheck = 0.0

    init(downloader: Downloader) {
        self.downloader = downloader
        multi = downloader.handleForLoop.multi
        configuration = downloader.configuration
        scheduler = Scheduler(configuration: .init(
            maxRunning: configuration.maxConcurrentTransfers,
            maxPerHost: configuration.maxConnectionsPerHost,
            order: configuration.order))
        limiter = RateLimiter(rate: configuration.requestsPerSecond)
    }

    func run() {
        while true {
            let (jobs, stopping) = downloader.takeInbox()
            for job in jobs {
                if job.job.expiresAt != nil { expiring += 1 }
                _ = scheduler.add(key: job.key, host: job.job.hostKey, priority: job.priority, payload: job)
            }
            if stopping { break }
            removeExpired()
            let rateDelay = startReady()

            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            // Stall trap: when every transfer just ended, poll would have no socket to wait
            // on and sleep its whole timeout. Go round again to refill the free slots first.
            if drainCompleted() > 0 { continue }
            var timeout = rateDelay > 0 ? max(1, Int32(rateDelay * 1000)) : 1000
            if expiring > 0 { timeout = min(timeout, 100) }
            _ = curl_multi_poll(multi, nil, 0, timeout, nil)
        }
        stop()
    }

    /// Ends a task in the scheduler; returns the jobs that shared it.
    private func finishTask(_ key: String) -> [PendingJob] {
        let jobs = scheduler.finish(key: key)
        expiring -= jobs.filter { $0.job.expiresAt != nil }.count
        return jobs
    }

    /// At most every 50 ms, and only while some job has an `expires_at`.
    private func removeExpired() {
        guard expiring > 0 else { return }
        let now = Date().timeIntervalSince1970
        guard now - lastExpiryCheck >= 0.05 else { return }
        lastExpiryCheck = now
        let expired = scheduler.removeExpired { $0.job.isExpired(at: now) }
        guard !expired.isEmpty else { return }
        expiring -= expired.count
        downloader.delegate.jobsExpired(expired)
    }

    /// Starts waiting tasks while slots, host caps and the rate limit allow. Returns the
    /// seconds until the rate limiter allows the next start (0 when it is not the limit).
    private func startReady() -> Double {
        while scheduler.waitingCount > 0 {
            let now = -clockStart.timeIntervalSinceNow
            let delay = limiter.delay(now: now)
            if delay > 0 { return delay }
            guard let task = scheduler.startNext() else { return 0 }
            _ = limiter.tryTake(now: now)
            start(task)
        }
        return 0
    }

    private func start(_ task: Scheduler<PendingJob>.Task) {
        let destination: TransferDestination
        do {
            destination = try downloader.delegate.destination(for: task.payloads[0])
        } catch {
            let response = TransferResponse(error: TransferError(reason: .writeFailed(errno: EIO), message: "cannot open cache file: \(error)"))
            downloader.delegate.transferFinished(key: task.key, leader: task.payloads[0], destination: nil, response: response,
                                                 jobs: finishTask(task.key))
            return
        }
        let transfer = Transfer(key: task.key, leader: task.payloads[0], destination: destination, maxBodyBytes: configuration.maxBodyBytes)
        guard let easy = idle.popLast().map({ curl_easy_reset($0); return $0 }) ?? curl_easy_init() else {
            finish(transfer, error: TransferError(reason: .curl(code: -1, transient: true), message: "curl_easy_init failed"))
            return
        }
        transfer.easy = easy
        let opaque = Unmanaged.passRetained(transfer).toOpaque()
        do {
            try TransferOptions.apply(to: easy, pending: task.payloads[0], transfer: transfer, userdata: opaque, configuration: configuration)
            try CurlError.check(curl_multi_add_handle(multi, easy), "curl_multi_add_handle")
            active[easy] = transfer
            downloader.delegate.transferStarted(key: task.key, jobs: task.payloads)
        } catch {
            Unmanaged<Transfer>.fromOpaque(opaque).release()
            idle.append(easy)
            finish(transfer, error: TransferError(reason: .curl(code: error.code, transient: false), message: error.message))
        }
    }

    /// Completes the transfers curl reports done; returns how many ended.
    private func drainCompleted() -> Int {
        var ended = 0
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = prefetch_msg_result(message)
            curl_multi_remove_handle(multi, easy)
            ended += 1
            guard let transfer = active.removeValue(forKey: easy) else { idle.append(easy); continue }
            Unmanaged.passUnretained(transfer).release() // balance passRetained in start()
            finish(transfer, response: TransferOptions.response(easy: easy, code: code, transfer: transfer))
            idle.append(easy)
        }
        return ended
    }

    private func stop() {
        for (easy, transfer) in active {
            curl_multi_remove_handle(multi, easy)
            Unmanaged.passUnretained(transfer).release()
            finish(transfer, error: TransferError(reason: .cancelled, message: "downloader shut down"))
            idle.append(easy)
        }
        active.removeAll()
        for easy in idle { curl_easy_cleanup(easy) }
        curl_multi_cleanup(multi)
        let unstarted = scheduler.removeAllWaiting() + downloader.takeInbox().jobs
        downloader.loopEnded(notStarted: unstarted)
    }

    private func finish(_ transfer: Transfer, error: TransferError) {
        finish(transfer, response: TransferResponse(bytes: transfer.bytesWritten, error: error))
    }

    private func finish(_ transfer: Transfer, response: TransferResponse) {
        transfer.releaseResources()
        let jobs = finishTask(transfer.key)
        downloader.delegate.transferFinished(key: transfer.key, leader: transfer.leader, destination: transfer.destination,
                                             response: response, jobs: jobs)
    }
}
