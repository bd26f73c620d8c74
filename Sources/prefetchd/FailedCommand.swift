import Foundation
import PrefetchCore
import PrefetchRedis

/// `prefetchd failed ...`: look at and edit the set of URLs that failed for good.
enum FailedCommand {
    static let usage = """
        usage: prefetchd failed <command> [--redis URL] [--prefix P]

          list               every failed URL with its reason, status and attempts
          remove URL ...     forget these URLs (they will be fetched again)
          clear              forget every failed URL
        """

    static func run(_ args: [String]) throws -> Int32 {
        var args = args
        guard !args.isEmpty else { throw Options.UsageError(description: "missing failed command\n\n\(usage)") }
        let command = args.removeFirst()
        let o = try Options(args, valued: ["redis", "prefix"])
        let url = try RedisURL(parsing: o.string("redis", env: "PREFETCH_REDIS_URL", default: RedisURL.defaultString)!)
        let keys = RedisKeys(prefix: o.string("prefix", env: "PREFETCH_PREFIX", default: "prefetch")!)
        let redis = try RedisConnection(url: url)
        let commands = OutcomeCommands(keys: keys, worker: "cli")
        switch command {
        case "list":
            let urls = (try redis.command(["SMEMBERS", keys.failed]).check().array ?? []).compactMap(\.string).sorted()
            guard !urls.isEmpty else { return 0 }
            let records = try redis.command(["HMGET", keys.failedReasons] + urls).check().array ?? []
            for (u, record) in zip(urls, records) {
                print(u + "\t" + (record.string ?? "{}"))
            }
            return 0
        case "remove":
            guard !o.positional.isEmpty else { throw Options.UsageError(description: "give the URLs to remove") }
            var removed = 0
            for text in o.positional {
                // Stored normalized: accept any spelling of the same URL.
                let normalized = (try? NormalizedURL(parsing: text).string) ?? text
                let replies = try redis.pipeline(commands.clearFailed(normalized))
                removed += try replies[0].check().integer ?? 0
            }
            print("removed \(removed) of \(o.positional.count) URL(s) from \(keys.failed)")
            return 0
        case "clear":
            let replies = try redis.pipeline([["SCARD", keys.failed], ["DEL", keys.failed, keys.failedReasons, keys.failedExpiry]])
            print("removed \(try replies[0].check().integer ?? 0) URL(s) from \(keys.failed)")
            return 0
        default:
            throw Options.UsageError(description: "unknown failed command '\(command)'\n\n\(usage)")
        }
    }
}
