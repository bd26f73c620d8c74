import Foundation
import PrefetchCache
import PrefetchCore
import PrefetchImage
import PrefetchRedis
import PrefetchWorker

/// `prefetchd worker`: runs one worker until SIGTERM or SIGINT.
enum WorkerCommand {
    static let usage = """
        usage: prefetchd worker [options]

          --redis URL            redis:// or unix:// URL     [PREFETCH_REDIS_URL]  default redis://127.0.0.1:6379
          --prefix P             key prefix                   [PREFETCH_PREFIX]     default prefetch
          --cache-dir DIR        shared cache directory       [PREFETCH_CACHE_DIR]  default ~/.cache/prefetchd
          --worker-id ID         name in events and keys      [PREFETCH_WORKER_ID]  default <host>-<pid>-<random>
          --concurrency N        transfers at once            [PREFETCH_CONCURRENCY] default 64
          --per-host N           transfers per host, 0=any    [PREFETCH_PER_HOST]   default 16
          --order fifo|lifo      order within a priority      [PREFETCH_ORDER]      default fifo
          --rate N               transfer starts per second   [PREFETCH_RATE]       default 0 (no limit)
          --max-in-flight N      jobs held at once            [PREFETCH_MAX_IN_FLIGHT] default 2 × concurrency (lifo: 1 ×)
          --connect-timeout S    connect timeout, seconds     [PREFETCH_CONNECT_TIMEOUT] default 10
          --timeout S            whole-transfer timeout       [PREFETCH_TIMEOUT]    default 300
          --max-body-size SIZE   largest body (K/M/G)         [PREFETCH_MAX_BODY_SIZE] default 1G
          --max-redirects N      redirects followed           [PREFETCH_MAX_REDIRECTS] default 5
          --low-speed-limit B    abort below B bytes/s ...    [PREFETCH_LOW_SPEED_LIMIT] default 1024
          --low-speed-time S     ... sustained for S seconds  [PREFETCH_LOW_SPEED_TIME] default 30
          --started-events       also publish "started" events [PREFETCH_STARTED_EVENTS=1]
          --ca-file PEM          trust these CAs for https     [PREFETCH_CA_FILE]    default the system's
          --grace S              shutdown grace period        [PREFETCH_GRACE]      default 30
          --max-attempts N       attempts for transient failures [PREFETCH_MAX_ATTEMPTS] default 5
          --retry-base S         first backoff delay (doubles)   [PREFETCH_RETRY_BASE]  default 1
          --retry-max S          longest backoff delay           [PREFETCH_RETRY_MAX]   default 300
          --fail-exhausted       exhausted transient failures enter the failed set [PREFETCH_FAIL_EXHAUSTED=1]
          --failed-ttl S         failed-set entries expire after S seconds, 0=never [PREFETCH_FAILED_TTL] default 0
          --heartbeat-ttl S      a worker silent this long is dead [PREFETCH_HEARTBEAT_TTL] default 10
          --max-recoveries N     recoveries before a job is a poison pill [PREFETCH_MAX_RECOVERIES] default 3
          --lease S              cross-worker fetch lease        [PREFETCH_LEASE]       default 30
          --cache-max-size SIZE  evict LRU entries above this    [PREFETCH_CACHE_MAX_SIZE] default none
          --cache-max-age S      remove entries stored longer ago [PREFETCH_CACHE_MAX_AGE] default none
          --sweep-interval S     seconds between cache sweeps    [PREFETCH_SWEEP_INTERVAL] default 60
          --revalidate-after S   revalidate entries older than S instead of serving them [PREFETCH_REVALIDATE_AFTER] default never
          --ignore-query-param A,B  query parameters left out of cache keys [PREFETCH_IGNORE_QUERY_PARAMS]
          --verify LEVEL         none|header|structure|full      [PREFETCH_VERIFY]     default structure
          --expect-image         bodies must be images           [PREFETCH_EXPECT_IMAGE=1]
          --max-pixels N         width×height limit (K/M suffix)  [PREFETCH_MAX_PIXELS] default 50M
          --thumbnails 256,1024  thumbnails for every job         [PREFETCH_THUMBNAILS] default none
          --thumbnail-quality Q  JPEG quality of thumbnails       [PREFETCH_THUMBNAIL_QUALITY] default 85
          --image-threads N      decodes at once                  [PREFETCH_IMAGE_THREADS] default cores
          --log-level L          debug|info|warning|error     [PREFETCH_LOG_LEVEL]  default info
        """

    static let valued: Set<String> = [
        "redis", "prefix", "cache-dir", "worker-id", "concurrency", "per-host", "max-in-flight",
        "connect-timeout", "timeout", "max-body-size", "max-redirects", "grace", "log-level",
        "order", "rate", "low-speed-limit", "low-speed-time",
        "max-attempts", "retry-base", "retry-max", "failed-ttl", "heartbeat-ttl", "max-recoveries", "lease",
        "cache-max-size", "cache-max-age", "sweep-interval", "revalidate-after", "ignore-query-param",
        "verify", "max-pixels", "thumbnails", "thumbnail-quality", "image-threads", "ca-file",
    ]
    static let switches: Set<String> = ["started-events", "fail-exhausted", "expect-image"]

    static func configuration(_ o: Options) throws -> Worker.Configuration {
        var c = Worker.Configuration(cacheDirectory: o.string("cache-dir", env: "PREFETCH_CACHE_DIR", default: defaultCacheDirectory(o))!)
        c.redisURL = try RedisURL(parsing: o.string("redis", env: "PREFETCH_REDIS_URL", default: RedisURL.defaultString)!)
        c.keys = RedisKeys(prefix: o.string("prefix", env: "PREFETCH_PREFIX", default: "prefetch")!)
        if let id = o.string("worker-id", env: "PREFETCH_WORKER_ID") { c.workerID = id }
        c.downloader.maxConcurrentTransfers = max(1, try o.int("concurrency", env: "PREFETCH_CONCURRENCY", default: c.downloader.maxConcurrentTransfers))
        c.downloader.maxConnectionsPerHost = try o.int("per-host", env: "PREFETCH_PER_HOST", default: c.downloader.maxConnectionsPerHost)
        c.maxJobsInFlight = try o.int("max-in-flight", env: "PREFETCH_MAX_IN_FLIGHT", default: 0)
        c.downloader.connectTimeout = try o.seconds("connect-timeout", env: "PREFETCH_CONNECT_TIMEOUT", default: c.downloader.connectTimeout)
        c.downloader.totalTimeout = try o.seconds("timeout", env: "PREFETCH_TIMEOUT", default: c.downloader.totalTimeout)
        c.downloader.maxBodyBytes = try o.bytes("max-body-size", env: "PREFETCH_MAX_BODY_SIZE", default: c.downloader.maxBodyBytes)
        c.downloader.maxRedirects = try o.int("max-redirects", env: "PREFETCH_MAX_REDIRECTS", default: c.downloader.maxRedirects)
        c.shutdownGracePeriod = try o.seconds("grace", env: "PREFETCH_GRACE", default: c.shutdownGracePeriod)
        let orderName = o.string("order", env: "PREFETCH_ORDER", default: "fifo")!
        guard let order = ExecutionOrder(rawValue: orderName.lowercased()) else {
            throw Options.UsageError(description: "--order must be fifo or lifo, got '\(orderName)'")
        }
        c.downloader.order = order
        c.downloader.requestsPerSecond = try o.seconds("rate", env: "PREFETCH_RATE", default: 0)
        c.downloader.lowSpeedBytesPerSecond = try o.int("low-speed-limit", env: "PREFETCH_LOW_SPEED_LIMIT", default: c.downloader.lowSpeedBytesPerSecond)
        c.downloader.lowSpeedSeconds = try o.int("low-speed-time", env: "PREFETCH_LOW_SPEED_TIME", default: c.downloader.lowSpeedSeconds)
        c.publishStartedEvents = o.flag("started-events") || o.environment["PREFETCH_STARTED_EVENTS"] == "1"
        c.downloader.caFile = o.string("ca-file", env: "PREFETCH_CA_FILE")
        c.retry.maxAttempts = max(1, try o.int("max-attempts", env: "PREFETCH_MAX_ATTEMPTS", default: c.retry.maxAttempts))
        c.retry.baseDelay = try o.seconds("retry-base", env: "PREFETCH_RETRY_BASE", default: c.retry.baseDelay)
        c.retry.maxDelay = try o.seconds("retry-max", env: "PREFETCH_RETRY_MAX", default: c.retry.maxDelay)
        c.outcomes.failExhausted = o.flag("fail-exhausted") || o.environment["PREFETCH_FAIL_EXHAUSTED"] == "1"
        c.outcomes.failedTTL = try o.seconds("failed-ttl", env: "PREFETCH_FAILED_TTL", default: 0)
        c.heartbeatTTL = max(0.5, try o.seconds("heartbeat-ttl", env: "PREFETCH_HEARTBEAT_TTL", default: c.heartbeatTTL))
        c.maxRecoveries = try o.int("max-recoveries", env: "PREFETCH_MAX_RECOVERIES", default: c.maxRecoveries)
        c.leaseSeconds = max(1, try o.seconds("lease", env: "PREFETCH_LEASE", default: c.leaseSeconds))
        c.cacheLimits.maxBytes = Int64(try o.bytes("cache-max-size", env: "PREFETCH_CACHE_MAX_SIZE", default: 0))
        c.cacheLimits.maxAge = try o.seconds("cache-max-age", env: "PREFETCH_CACHE_MAX_AGE", default: 0)
        c.sweepInterval = max(1, try o.seconds("sweep-interval", env: "PREFETCH_SWEEP_INTERVAL", default: c.sweepInterval))
        c.revalidateAfter = try o.seconds("revalidate-after", env: "PREFETCH_REVALIDATE_AFTER", default: 0)
        c.keyPolicy = keyPolicy(o)
        let level = o.string("verify", env: "PREFETCH_VERIFY", default: "structure")!
        guard let verification = VerificationLevel(rawValue: level) else {
            throw Options.UsageError(description: "--verify must be none, header, structure or full, got '\(level)'")
        }
        c.images.verification = verification
        c.images.expectImage = o.flag("expect-image") || o.environment["PREFETCH_EXPECT_IMAGE"] == "1"
        c.images.maxPixels = try o.count("max-pixels", env: "PREFETCH_MAX_PIXELS", default: c.images.maxPixels)
        c.images.jpegQuality = min(100, max(1, try o.int("thumbnail-quality", env: "PREFETCH_THUMBNAIL_QUALITY", default: c.images.jpegQuality)))
        c.images.threads = max(1, try o.int("image-threads", env: "PREFETCH_IMAGE_THREADS", default: c.images.threads))
        let sides = o.string("thumbnails", env: "PREFETCH_THUMBNAILS", default: "")!.split(separator: ",")
        c.images.thumbnails = try sides.map { text in
            guard let side = Int(text.trimmingCharacters(in: .whitespaces)), (1...Job.maxThumbnailSide).contains(side) else {
                throw Options.UsageError(description: "--thumbnails takes sizes from 1 to \(Job.maxThumbnailSide), got '\(text)'")
            }
            return side
        }
        return c
    }

    static func keyPolicy(_ o: Options) -> CacheKeyPolicy {
        let names = o.string("ignore-query-param", env: "PREFETCH_IGNORE_QUERY_PARAMS", default: "")!
        return CacheKeyPolicy(ignoredQueryParameters: Set(names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }))
    }

    static func defaultCacheDirectory(_ o: Options) -> String {
        if let xdg = o.environment["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/prefetchd" }
        return (o.environment["HOME"] ?? ".") + "/.cache/prefetchd"
    }

    static func run(_ args: [String]) throws -> Int32 {
        let o = try Options(args, valued: valued, switches: switches)
        guard o.positional.isEmpty else { throw Options.UsageError(description: "unexpected argument '\(o.positional[0])'") }
        if let name = o.string("log-level", env: "PREFETCH_LOG_LEVEL") {
            guard let level = Log.Level(name: name) else { throw Options.UsageError(description: "unknown log level '\(name)'") }
            Log.setLevel(level)
        }
        let worker = try Worker(configuration: configuration(o))
        let stopped = DispatchSemaphore(value: 0)
        // Started first, so a signal never stops a worker whose threads are not running.
        worker.start()
        let signals = SignalHandler(onFirst: {
            Log.info("signal received: stopping gracefully (send again to exit at once)")
            worker.stop()
            stopped.signal()
        }, onSecond: {
            // Jobs still in the processing list stay there for recovery; none is lost.
            Log.warning("second signal: exiting now")
            exit(130)
        })
        stopped.wait()
        withExtendedLifetime(signals) {}
        return 0
    }
}
