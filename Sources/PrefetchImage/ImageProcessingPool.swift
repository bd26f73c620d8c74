import Foundation

/// Dedicated threads for decode work (verification at `full`, thumbnails), so blocking C
/// decoders never run on Swift's cooperative pool.
///
/// Bounds: at most `threadCount` jobs run at once, so at most that many images' pixel
/// memory is held; at most `maxQueued` jobs wait in the queue for `submit`/`trySubmit`
/// (each waiting job holds whatever its closure captured). `run` never blocks a thread:
/// the awaiting task's job waits in the queue beyond `maxQueued`, bounded by the number of
/// tasks awaiting.
public final class ImageProcessingPool: Sendable {
    public let threadCount: Int
    public let maxQueued: Int
    private let queue: JobQueue

    /// - Parameters:
    ///   - threads: worker threads; by default the number of active processors.
    ///   - maxQueued: jobs that may wait before `submit` blocks; by default 4 per thread.
    public init(threads: Int = ProcessInfo.processInfo.activeProcessorCount, maxQueued: Int? = nil, name: String = "image") {
        threadCount = max(1, threads)
        self.maxQueued = max(1, maxQueued ?? 4 * threadCount)
        queue = JobQueue(capacity: self.maxQueued, threads: threadCount)
        for index in 0..<threadCount {
            let queue = self.queue
            let thread = Thread { queue.work() }
            thread.name = "prefetchd.\(name).\(index)"
            thread.start()
        }
    }

    deinit {
        queue.stop(wait: false)
    }

    /// Queues `work`, blocking the calling thread while `maxQueued` jobs already wait.
    /// Call it from a thread, never from a Swift task. Returns false (and drops `work`) once
    /// the pool is shut down.
    @discardableResult
    public func submit(_ work: @Sendable @escaping () -> Void) -> Bool {
        queue.enqueue(work, mode: .block)
    }

    /// Queues `work` unless `maxQueued` jobs already wait or the pool is shut down.
    public func trySubmit(_ work: @Sendable @escaping () -> Void) -> Bool {
        queue.enqueue(work, mode: .failIfFull)
    }

    /// Runs `work` on the pool and returns its result; the task is suspended, no thread is
    /// blocked. After `shutdown`, runs nothing and throws `.invalidArgument`.
    public func run<T: Sendable>(_ work: @Sendable @escaping () throws(ImageError) -> T) async throws(ImageError) -> T {
        let result: Result<T, ImageError> = await withCheckedContinuation { continuation in
            let accepted = queue.enqueue({
                continuation.resume(returning: Result { () throws(ImageError) -> T in try work() })
            }, mode: .always)
            if !accepted { continuation.resume(returning: .failure(.invalidArgument("the image pool is shut down"))) }
        }
        return try result.get()
    }

    /// Jobs waiting, and jobs running.
    public var load: (queued: Int, running: Int) { queue.load }

    /// Stops accepting work, lets queued jobs finish, and waits for the threads to exit.
    /// Must not be called from one of the pool's own jobs.
    public func shutdown() {
        queue.stop(wait: true)
    }
}

private final class JobQueue: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `condition`.
    enum Mode { case block, failIfFull, always }

    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var running = 0
    private var stopping = false
    private var alive: Int
    private let capacity: Int

    init(capacity: Int, threads: Int) {
        self.capacity = capacity
        alive = threads
    }

    private var queued: Int { jobs.count - head }

    func enqueue(_ job: @escaping @Sendable () -> Void, mode: Mode) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !stopping, mode != .always, queued >= capacity {
            if mode == .failIfFull { return false }
            condition.wait()
        }
        guard !stopping else { return false }
        jobs.append(job)
        condition.broadcast()
        return true
    }

    /// A worker thread's loop.
    func work() {
        condition.lock()
        while true {
            while queued == 0, !stopping { condition.wait() }
            if queued == 0 { break } // stopping, and nothing left
            let job = jobs[head]
            head += 1
            if head > 64, head * 2 > jobs.count { // compact now and then
                jobs.removeFirst(head)
                head = 0
            }
            running += 1
            condition.broadcast() // a slot in the queue is free
            condition.unlock()
            job()
            condition.lock()
            running -= 1
        }
        alive -= 1
        condition.broadcast()
        condition.unlock()
    }

    func stop(wait: Bool) {
        condition.lock()
        stopping = true
        condition.broadcast()
        if wait {
            while alive > 0 { condition.wait() }
        }
        condition.unlock()
    }

    var load: (queued: Int, running: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (queued, running)
    }
}
