import Foundation
import PrefetchCache
import PrefetchCore
import PrefetchHTTP
import PrefetchImage
import PrefetchRedis
import Synchronization

/// One prefetchd worker process: takes jobs from Redis, serves them from the cache or
/// downloads them, and records one outcome per job.
///
///     intake thread ──▶ parse ─▶ cache ─▶ admission ─▶ downloader thread (scheduler + curl multi)
///                          │        │          │                │ commit to cache
///                          └────────┴──────────┴──────▶ outcome writer thread ──▶ Redis
///     housekeeper thread: heartbeat, recovery of dead workers' jobs, due retries, leases
public final class Worker: Sendable {
    public struct Configuration: Sendable {
        /// Default: `redis://127.0.0.1:6379`.
        public var redisURL = RedisURL(endpoint: .tcp(host: "127.0.0.1", port: 6379))
        /// Key names under one prefix. Default prefix: `prefetch`.
        public var keys = RedisKeys()
        /// Root of the shared disk cache. No default: the command line supplies one.
        public var cacheDirectory: String
        /// Names this worker's processing lists and appears in events.
        /// Default: `<host>-<pid>-<random>`.
        public var workerID = Worker.defaultID()
        public var downloader = Downloader.Configuration()
        /// Jobs taken from Redis and not yet recorded. Default: 0, meaning twice
        /// `downloader.maxConcurrentTransfers` in FIFO order and exactly that many in LIFO
        /// order (a later take brings older jobs, so LIFO keeps no backlog of its own and the
        /// list decides the order).
        public var maxJobsInFlight = 0
        /// Seconds a blocking take waits on an empty queue. Default: 1.
        public var blockTimeout = 1.0
        /// Seconds transfers in flight get to finish on stop; the rest return to the queue. Default: 30.
        public var shutdownGracePeriod = 30.0
        public var outcomes = OutcomeCommands.Configuration()
        /// Publish a `started` event when a transfer begins. Default: false.
        public var publishStartedEvents = false
        /// Retries of transient failures. Default: 5 attempts, 1 s doubling to 300 s, with jitter.
        public var retry = RetryPolicy()
        /// Seconds the heartbeat lives; a worker silent this long is presumed dead and its
        /// jobs are returned to the queue. Default: 10.
        public var heartbeatTTL = 10.0
        /// Seconds a cross-worker lease on a key lives without renewal. Default: 30.
        public var leaseSeconds = 30.0
        /// Recoveries from dead workers before a job is dead-lettered as a poison pill. Default: 3.
        public var maxRecoveries = 3
        /// Seconds a job waits when another worker is fetching its key. Default: 0.5.
        public var deferDelay = 0.5
        /// How cache keys are derived from URLs (query parameters to ignore). Default: none ignored.
        public var keyPolicy = CacheKeyPolicy()
        /// Cached entries confirmed longer ago than this many seconds are revalidated with a
        /// conditional request instead of served; 0 means never. Default: 0.
        public var revalidateAfter = 0.0
        /// Size and age limits of the cache, enforced while the worker runs. Default: none.
        public var cacheLimits = CacheSweeper.Limits()
        /// Seconds between cache sweeps (one worker of the fleet sweeps at a time). Default: 60.
        public var sweepInterval = 60.0
        /// Verification and thumbnails. Default: `structure` verification, no thumbnails.
        public var images = ImageSettings()

        public init(cacheDirectory: String) {
            self.cacheDirectory = cacheDirectory
        }

        var effectiveMaxJobsInFlight: Int {
            if maxJobsInFlight > 0 { return maxJobsInFlight }
            return downloader.order == .lifo ? downloader.maxConcurrentTransfers : 2 * downloader.maxConcurrentTransfers
        }
    }

    public let configuration: Configuration
    let cache: DiskCache
    let downloader: Downloader
    let gate: InFlightGate
    let writer: OutcomeWriter
    let held = HeldJobs()
    private let handler: TransferHandler
    private let housekeeper: Housekeeper
    private let janitor: CacheJanitor
    let images: ImageProcessor
    private let intake: Mutex<JobIntake?> = Mutex(nil)
    let stats = StatisticsBox()
    let stopping = Atomic<Bool>(false)

    public init(configuration: Configuration) throws {
        self.configuration = configuration
        cache = try DiskCache(root: configuration.cacheDirectory,
                              reader: CacheReader(root: configuration.cacheDirectory, keyPolicy: configuration.keyPolicy))
        janitor = CacheJanitor(settings: .init(
            keys: configuration.keys, worker: configuration.workerID, url: configuration.redisURL,
            root: configuration.cacheDirectory, limits: configuration.cacheLimits, interval: configuration.sweepInterval))
        gate = InFlightGate(limit: configuration.effectiveMaxJobsInFlight)
        let commands = OutcomeCommands(keys: configuration.keys, worker: configuration.workerID,
                                       order: configuration.downloader.order, configuration: configuration.outcomes)
        let (gate, stats, held) = (self.gate, self.stats, self.held)
        writer = OutcomeWriter(url: configuration.redisURL, commands: commands, prepare: { outcome in
            // Release a lease only when the last job of this worker relying on it is done.
            var outcome = outcome
            if let lease = outcome.leaseKey, !held.releaseLease(lease) { outcome.leaseKey = nil }
            return outcome
        }, recorded: { batch in
            let terminal = batch.filter(\.result.isTerminal)
            for outcome in terminal { held.remove(outcome.rawJob, queue: outcome.queue) }
            stats.value.withLock { s in for outcome in terminal { s.count(outcome) } }
            gate.release(terminal.count)
        })
        let janitor = self.janitor
        images = ImageProcessor(settings: configuration.images, cache: cache)
        handler = TransferHandler(cache: cache, writer: writer, images: images, retry: configuration.retry,
                                  publishStarted: configuration.publishStartedEvents,
                                  stored: { bytes in janitor.noteStored(bytes) })
        downloader = try Downloader(configuration: configuration.downloader, delegate: handler)
        housekeeper = Housekeeper(settings: .init(
            keys: configuration.keys, worker: configuration.workerID, url: configuration.redisURL,
            heartbeatTTL: configuration.heartbeatTTL, leaseSeconds: configuration.leaseSeconds,
            maxRecoveries: configuration.maxRecoveries, order: configuration.downloader.order, failedTTL: configuration.outcomes.failedTTL), held: held)
    }

    public var statistics: Statistics { stats.value.withLock { $0 } }

    public func start() {
        writer.start()
        housekeeper.start()
        janitor.start()
        let c = configuration
        let settings = JobIntake.Settings(
            keys: c.keys, worker: c.workerID, url: c.redisURL, blockTimeout: c.blockTimeout,
            maxBatch: max(1, c.effectiveMaxJobsInFlight / 2), order: c.downloader.order)
        let housekeeper = self.housekeeper
        let intake = JobIntake(settings: settings, gate: gate, held: held,
                               beforeFirstTake: { isStopping in housekeeper.waitUntilRegistered(unless: isStopping) },
                               handle: { [self] batch, redis in admit(batch, redis: redis) })
        self.intake.withLock { $0 = intake }
        intake.start()
        Log.info("worker \(c.workerID) started: redis \(c.redisURL), queues \(c.keys.queue(.high)) > \(c.keys.queue) > \(c.keys.queue(.low)), order \(c.downloader.order.rawValue), cache \(c.cacheDirectory)")
    }

    /// Graceful stop: take no more jobs, let transfers finish within the grace period,
    /// return the rest to the queue, record every outcome, deregister, then return.
    public func stop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        Log.info("stopping: \(gate.current) jobs in flight, grace period \(configuration.shutdownGracePeriod) s")
        intake.withLock { $0 }?.stop()
        if !gate.waitUntilEmpty(timeout: configuration.shutdownGracePeriod) {
            Log.warning("grace period over: returning unfinished jobs to the queue")
        }
        for pending in downloader.shutdown() {
            writer.submit(Outcome(pending, .returnToQueue))
        }
        images.shutdown() // finishes queued verifications, whose outcomes the writer then records
        writer.stopAfterFlushing()
        housekeeper.stop()
        janitor.stop()
        Log.info("worker \(configuration.workerID) stopped: \(statistics)")
    }

    public static func defaultID() -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        return "\(host)-\(getpid())-\(suffix)"
    }
}

/// The worker's image settings (see `ImageProcessor.Settings` for the defaults).
public typealias ImageSettings = ImageProcessor.Settings
