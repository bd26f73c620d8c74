import Foundation
import PrefetchCache
import PrefetchCore
import PrefetchHTTP
import PrefetchRedis
import Synchronization

/// One prefetchd worker process: takes jobs from Redis, serves them from the cache or
/// downloads them, and records one outcome per job.
///
///     intake thread ──▶ parse ─▶ cache lookup ─▶ downloader thread (curl multi)
///                                      │                     │ commit to cache
///                                      └──────────▶ outcome writer thread ──▶ Redis
public final class Worker: Sendable {
    public struct Configuration: Sendable {
        /// Default: `redis://127.0.0.1:6379`.
        public var redisURL = RedisURL(endpoint: .tcp(host: "127.0.0.1", port: 6379))
        /// Key names under one prefix. Default prefix: `prefetch`.
        public var keys = RedisKeys()
        /// Root of the shared disk cache. No default: the command line supplies one.
        public var cacheDirectory: String
        /// Names this worker's processing list and appears in events.
        /// Default: `<host>-<pid>-<random>`.
        public var workerID = Worker.defaultID()
        public var downloader = Downloader.Configuration()
        /// Jobs taken from Redis and not yet recorded. Default: 0, meaning twice
        /// `downloader.maxConcurrentTransfers`.
        public var maxJobsInFlight = 0
        /// Seconds a blocking take waits on an empty queue. Default: 1.
        public var blockTimeout = 1.0
        /// Seconds transfers in flight get to finish on stop; the rest return to the queue. Default: 30.
        public var shutdownGracePeriod = 30.0
        public var outcomes = OutcomeCommands.Configuration()
        /// Publish a `started` event when a transfer begins. Default: false.
        public var publishStartedEvents = false

        public init(cacheDirectory: String) {
            self.cacheDirectory = cacheDirectory
        }

        var effectiveMaxJobsInFlight: Int {
            maxJobsInFlight > 0 ? maxJobsInFlight : 2 * downloader.maxConcurrentTransfers
        }
    }

    /// Counts of outcomes recorded so far.
    public struct Statistics: Sendable, Equatable, CustomStringConvertible {
        public var downloaded = 0
        public var fromCache = 0
        public var failed = 0
        public var deadLettered = 0
        public var returned = 0

        public var description: String {
            "downloaded \(downloaded), from cache \(fromCache), failed \(failed), dead-lettered \(deadLettered), returned \(returned)"
        }
    }

    public let configuration: Configuration
    let cache: DiskCache
    let downloader: Downloader
    let gate: InFlightGate
    let writer: OutcomeWriter
    private let handler: TransferHandler
    private let intake: Mutex<JobIntake?> = Mutex(nil)
    let stats = StatisticsBox()
    let stopping = Atomic<Bool>(false)

    public init(configuration: Configuration) throws {
        self.configuration = configuration
        cache = try DiskCache(root: configuration.cacheDirectory)
        gate = InFlightGate(limit: configuration.effectiveMaxJobsInFlight)
        let commands = OutcomeCommands(keys: configuration.keys, worker: configuration.workerID,
                                       order: configuration.downloader.order, configuration: configuration.outcomes)
        let gate = self.gate
        let stats = self.stats
        writer = OutcomeWriter(url: configuration.redisURL, commands: commands) { batch in
            let terminal = batch.filter(\.result.isTerminal)
            stats.value.withLock { s in for outcome in terminal { s.count(outcome) } }
            gate.release(terminal.count)
        }
        handler = TransferHandler(cache: cache, writer: writer, publishStarted: configuration.publishStartedEvents)
        downloader = try Downloader(configuration: configuration.downloader, delegate: handler)
    }

    public var statistics: Statistics { stats.value.withLock { $0 } }

    public func start() {
        writer.start()
        let c = configuration
        let settings = JobIntake.Settings(
            keys: c.keys, worker: c.workerID, url: c.redisURL, blockTimeout: c.blockTimeout,
            maxBatch: max(1, c.effectiveMaxJobsInFlight / 2), order: c.downloader.order)
        let intake = JobIntake(settings: settings, gate: gate) { [self] raw in process(raw) }
        self.intake.withLock { $0 = intake }
        intake.start()
        Log.info("worker \(c.workerID) started: redis \(c.redisURL), queue \(c.keys.queue), cache \(c.cacheDirectory)")
    }

    /// Graceful stop: take no more jobs, let transfers finish within the grace period,
    /// return the rest to the queue, record every outcome, then return.
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
        writer.stopAfterFlushing()
        Log.info("worker \(configuration.workerID) stopped: \(statistics)")
    }

    public static func defaultID() -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        return "\(host)-\(getpid())-\(suffix)"
    }
}

extension Worker.Statistics {
    mutating func count(_ outcome: Outcome) {
        switch outcome.result {
        case .completed(let c) where c.source == .cache: fromCache += 1
        case .completed: downloaded += 1
        case .failed: failed += 1
        case .deadLettered: deadLettered += 1
        case .returnToQueue: returned += 1
        case .started: break
        }
    }
}

/// A reference to the counters, so the outcome writer's callback can share them.
final class StatisticsBox: Sendable {
    let value = Mutex(Worker.Statistics())
}
