import Foundation
import PrefetchCore
import PrefetchRedis

/// `prefetchd enqueue`: pushes URLs or JSON jobs onto the queues. Standard input is read
/// in chunks and pushed as it goes (pipelined `LPUSH`es of 1,000 jobs), so memory stays
/// flat however many URLs come in.
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
        let pusher = Pusher(connection: try RedisConnection(url: url), keys: keys, forced: forced)

        if o.positional.isEmpty || o.positional == ["-"] {
            try LineReader(fd: 0).forEachLine { line in try pusher.add(line) }
        } else {
            for job in o.positional { try pusher.add(job) }
        }
        try pusher.flush()
        for priority in Job.Priority.allCases.reversed() where pusher.pushed[priority, default: 0] > 0 {
            print("enqueued \(pusher.pushed[priority]!) job(s) on \(keys.queue(priority))")
        }
        if pusher.invalid > 0 { print("skipped \(pusher.invalid) invalid job(s)") }
        return pusher.invalid > 0 ? 1 : 0
    }
}

/// Validates jobs and pushes them in pipelined batches, one list per priority.
private final class Pusher {
    let connection: RedisConnection
    let keys: RedisKeys
    let forced: Job.Priority?
    private var pending: [Job.Priority: [String]] = [:]
    private var pendingCount = 0
    private(set) var pushed: [Job.Priority: Int] = [:]
    private(set) var invalid = 0
    private var lineNumber = 0

    init(connection: RedisConnection, keys: RedisKeys, forced: Job.Priority?) {
        self.connection = connection
        self.keys = keys
        self.forced = forced
    }

    func add(_ line: String) throws {
        lineNumber += 1
        let text = JobParser.trimmed(line)
        if text.isEmpty { return }
        do {
            let job = try JobParser.parse(text)
            pending[forced ?? job.priority ?? .normal, default: []].append(text)
            pendingCount += 1
        } catch {
            invalid += 1
            FileHandle.standardError.write(Data("line \(lineNumber): \(error): \(text.prefix(200))\n".utf8))
        }
        if pendingCount >= 10_000 { try flush() }
    }

    func flush() throws {
        var commands: [[String]] = []
        for (priority, jobs) in pending where !jobs.isEmpty {
            commands += QueueCommands.enqueue(jobs, to: keys.queue(priority))
            pushed[priority, default: 0] += jobs.count
        }
        pending.removeAll(keepingCapacity: true)
        pendingCount = 0
        guard !commands.isEmpty else { return }
        for reply in try connection.pipeline(commands) { _ = try reply.check() }
    }
}

/// Reads a file descriptor in 1 MiB chunks and yields its lines (LF or CRLF).
private struct LineReader {
    let fd: Int32

    func forEachLine(_ body: (String) throws -> Void) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var carry: [UInt8] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue } else { throw POSIXError(.EIO) } }
            if n == 0 { break }
            var start = 0
            for i in 0..<n where buffer[i] == UInt8(ascii: "\n") {
                if carry.isEmpty {
                    try body(String(decoding: buffer[start..<i], as: UTF8.self))
                } else {
                    carry.append(contentsOf: buffer[start..<i])
                    try body(String(decoding: carry, as: UTF8.self))
                    carry.removeAll(keepingCapacity: true)
                }
                start = i + 1
            }
            carry.append(contentsOf: buffer[start..<n])
        }
        if !carry.isEmpty { try body(String(decoding: carry, as: UTF8.self)) }
    }
}
