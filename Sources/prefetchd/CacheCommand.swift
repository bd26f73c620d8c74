import Foundation
import PrefetchCache
import PrefetchCore

/// `prefetchd cache ...`: look into the shared cache and keep it in shape.
enum CacheCommand {
    static let usage = """
        usage: prefetchd cache <command> [--cache-dir DIR] [--ignore-query-param NAMES]

          path URL|--key KEY   print the body file of an entry (exit 1 if absent)
          get URL|--key KEY    write the body to standard output
          stat                 entries, bytes, oldest and newest
          verify [--fix]       check every body against its size and SHA-256; report (or
                               with --fix remove) corrupt entries, orphaned bodies and
                               stale temp files; exit 1 if anything corrupt remains
          prune [--max-size SIZE] [--max-age S]
                               sweep now: stale temp files, orphans, entries over the age
                               limit, then least-recently-used entries down to 90% of SIZE

          --cache-dir defaults to $PREFETCH_CACHE_DIR, else ~/.cache/prefetchd.
          --ignore-query-param must match the workers' for URL lookups.
        """

    static func run(_ args: [String]) throws -> Int32 {
        var args = args
        guard !args.isEmpty else { throw Options.UsageError(description: "missing cache command\n\n\(usage)") }
        let command = args.removeFirst()
        let o = try Options(args, valued: ["cache-dir", "ignore-query-param", "key", "max-size", "max-age"], switches: ["fix"])
        let root = o.string("cache-dir", env: "PREFETCH_CACHE_DIR", default: WorkerCommand.defaultCacheDirectory(o))!
        let reader = CacheReader(root: root, keyPolicy: WorkerCommand.keyPolicy(o))
        switch command {
        case "path", "get":
            let key = try lookupKey(o, reader)
            guard let entry = reader.entry(forKey: key) else {
                FileHandle.standardError.write(Data("not in the cache: \(key)\n".utf8))
                return 1
            }
            if command == "path" {
                print(entry.bodyPath)
            } else {
                guard let (_, body) = reader.read(key: key) else { return 1 }
                FileHandle.standardOutput.write(body)
            }
            return 0
        case "stat":
            let s = CacheInspector(root: root).statistics()
            let format = { (t: Double?) in t.map { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: $0)) } ?? "-" }
            print("entries \(s.entries)\nbytes \(s.bytes)\noldest \(format(s.oldest))\nnewest \(format(s.newest))\ntemp files \(s.temporaries)")
            return 0
        case "verify":
            let started = Date()
            let report = CacheInspector(root: root).verify(fix: o.flag("fix"))
            for problem in report.problems { print(problem) }
            print("checked \(report.checked) entries in \(String(format: "%.2f", -started.timeIntervalSinceNow)) s: "
                  + "\(report.corrupt) corrupt, \(report.problems.count - report.corrupt) other problems"
                  + (o.flag("fix") ? ", \(report.removed) removed" : ""))
            return report.corrupt > 0 && !o.flag("fix") ? 1 : 0
        case "prune":
            var limits = CacheSweeper.Limits()
            limits.maxBytes = Int64(try o.bytes("max-size", env: "PREFETCH_CACHE_MAX_SIZE", default: 0))
            limits.maxAge = try o.seconds("max-age", env: "PREFETCH_CACHE_MAX_AGE", default: 0)
            print(CacheSweeper(root: root, limits: limits).sweep())
            return 0
        default:
            throw Options.UsageError(description: "unknown cache command '\(command)'\n\n\(usage)")
        }
    }

    private static func lookupKey(_ o: Options, _ reader: CacheReader) throws -> String {
        if let key = o.string("key") { return key }
        guard let url = o.positional.first else { throw Options.UsageError(description: "give a URL or --key KEY") }
        return try reader.key(forURL: url)
    }
}
