import Foundation
import PrefetchCore
import PrefetchRedis

/// `prefetchd enqueue`: pushes URLs or JSON jobs onto the queue, pipelined in chunks.
enum EnqueueCommand {
    static let usage = """
        usage: prefetchd enqueue [--redis URL] [--prefix P] [JOB ...]

          Each JOB is a URL or a JSON object with a "url" field. With no JOB, one job is
          read per line from standard input. Invalid jobs are reported and skipped; the
          exit status is 1 if there were any.
        """

    static func run(_ args: [String]) throws -> Int32 {
        let o = try Options(args, valued: ["redis", "prefix"])
        let url = try RedisURL(parsing: o.string("redis", env: "PREFETCH_REDIS_URL", default: RedisURL.defaultString)!)
        let keys = RedisKeys(prefix: o.string("prefix", env: "PREFETCH_PREFIX", default: "prefetch")!)
        var lines = o.positional
        if lines.isEmpty || lines == ["-"] {
            let input = FileHandle.standardInput.readDataToEndOfFile()
            lines = String(decoding: input, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
        }
        var jobs: [String] = []
        jobs.reserveCapacity(lines.count)
        var invalid = 0
        for (number, line) in lines.enumerated() {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            do {
                _ = try JobParser.parse(text)
                jobs.append(text)
            } catch {
                invalid += 1
                FileHandle.standardError.write(Data("line \(number + 1): \(error): \(text.prefix(200))\n".utf8))
            }
        }
        let connection = try RedisConnection(url: url)
        for reply in try connection.pipeline(QueueCommands.enqueue(jobs, to: keys.queue)) {
            _ = try reply.check()
        }
        print("enqueued \(jobs.count) job(s) on \(keys.queue)" + (invalid > 0 ? ", skipped \(invalid) invalid" : ""))
        return invalid > 0 ? 1 : 0
    }
}
