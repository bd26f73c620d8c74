import Foundation
import PrefetchCore
import PrefetchRedis

/// `prefetchd enqueue`: pushes URLs or JSON jobs onto the queue, pipelined in chunks.
enum EnqueueCommand {
    static let usage = """
        usage: prefetchd enqueue [--redis URL] [--prefix P] [--priority high|normal|low] [JOB ...]

          Each JOB is a URL or a JSON object with a "url" field. With no JOB, one job is
          read per line from standard input. Invalid jobs are reported and skipped; the
          exit status is 1 if there were any.

          --priority chooses the list (prefix:queue:high, prefix:queue, prefix:queue:low),
          which is what orders work across the whole fleet. Without it, a JSON job with a
          "priority" field goes to that priority's list and anything else to prefix:queue.
        """

    static func run(_ args: [String]) throws -> Int32 {
        let o = try Options(args, valued: ["redis", "prefix", "priority"])
        var forced: Job.Priority?
        if let name = o.string("priority") {
            guard let p = Job.Priority(name: name) else { throw Options.UsageError(description: "--priority must be high, normal or low") }
            forced = p
        }
        let url = try RedisURL(parsing: o.string("redis", env: "PREFETCH_REDIS_URL", default: RedisURL.defaultString)!)
        let keys = RedisKeys(prefix: o.string("prefix", env: "PREFETCH_PREFIX", default: "prefetch")!)
        var lines = o.positional
        if lines.isEmpty || lines == ["-"] {
            let input = FileHandle.standardInput.readDataToEndOfFile()
            lines = String(decoding: input, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
        }
        var jobs: [Job.Priority: [String]] = [:]
        var invalid = 0
        for (number, line) in lines.enumerated() {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            do {
                let job = try JobParser.parse(text)
                jobs[forced ?? job.priority ?? .normal, default: []].append(text)
            } catch {
                invalid += 1
                FileHandle.standardError.write(Data("line \(number + 1): \(error): \(text.prefix(200))\n".utf8))
            }
        }
        let connection = try RedisConnection(url: url)
        for priority in Job.Priority.allCases.reversed() {
            guard let list = jobs[priority], !list.isEmpty else { continue }
            for reply in try connection.pipeline(QueueCommands.enqueue(list, to: keys.queue(priority))) {
                _ = try reply.check()
            }
            print("enqueued \(list.count) job(s) on \(keys.queue(priority))")
        }
        if invalid > 0 { print("skipped \(invalid) invalid job(s)") }
        return invalid > 0 ? 1 : 0
    }
}
