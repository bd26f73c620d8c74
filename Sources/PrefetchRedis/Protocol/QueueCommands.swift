import PrefetchCore

/// How jobs leave the queues. A job moves atomically from its list into the worker's
/// processing list, and leaves that list only when its outcome has been recorded, so a
/// crash between the two leaves it recoverable rather than lost.
public enum QueueCommands {
    /// Moves up to ARGV[1] jobs from KEYS[1..3] (high, normal, low), in that order, each
    /// taken from the end ARGV[2] names, into the worker's matching processing list
    /// KEYS[4..6]. One round trip, atomic. Returns a flat array: list index (1-3), job, ...
    static let takeScript = """
        local want = tonumber(ARGV[1])
        local from = ARGV[2]
        local out = {}
        for list = 1, 3 do
          while want > 0 do
            local job = redis.call('LMOVE', KEYS[list], KEYS[list + 3], from, 'LEFT')
            if not job then break end
            out[#out + 1] = list
            out[#out + 1] = job
            want = want - 1
          end
        end
        return out
        """

    static let listsByPriority: [Job.Priority] = [.high, .normal, .low]

    /// The end of each list a worker takes from: the right (oldest, for `LPUSH` producers)
    /// in FIFO order, the left (newest) in LIFO order.
    static func end(_ order: ExecutionOrder) -> String { order == .fifo ? "RIGHT" : "LEFT" }

    public static func takeBatch(_ keys: RedisKeys, worker: String, count: Int, order: ExecutionOrder) -> [String] {
        ["EVAL", takeScript, "6", keys.queue(.high), keys.queue(.normal), keys.queue(.low),
         keys.processing(worker: worker, .high), keys.processing(worker: worker, .normal),
         keys.processing(worker: worker, .low), String(count), end(order)]
    }

    /// Waits up to `timeout` seconds for one normal-priority job (Redis cannot block on
    /// several lists and move atomically; the batch take covers high and low).
    /// Keep `timeout` well below the socket timeout.
    public static func takeBlocking(_ keys: RedisKeys, worker: String, timeout: Double, order: ExecutionOrder) -> [String] {
        ["BLMOVE", keys.queue(.normal), keys.processing(worker: worker, .normal), end(order), "LEFT", String(timeout)]
    }

    /// A job as taken, with the list it came from.
    public struct Taken: Sendable, Equatable {
        public let raw: String
        public let queue: Job.Priority
    }

    /// Jobs from a `takeBatch` reply, in the order they were pushed within each list
    /// (so the worker's backlog can apply FIFO or LIFO itself), highest priority first.
    public static func batch(from reply: RedisReply, order: ExecutionOrder) throws(RedisError) -> [Taken] {
        guard let items = try reply.check().array else { throw .unexpectedReply("taking jobs: \(reply)") }
        var taken: [Taken] = []
        taken.reserveCapacity(items.count / 2)
        var i = 0
        while i + 1 < items.count {
            guard let index = items[i].integer, (1...3).contains(index), let raw = items[i + 1].string else {
                throw .unexpectedReply("taking jobs: malformed batch")
            }
            taken.append(Taken(raw: raw, queue: listsByPriority[index - 1]))
            i += 2
        }
        if order == .lifo {
            // Taken newest first; give them back in push order within each list.
            taken = listsByPriority.flatMap { p in taken.filter { $0.queue == p }.reversed() }
        }
        return taken
    }

    /// The job from a `takeBlocking` reply, if one arrived.
    public static func blocking(from reply: RedisReply) throws(RedisError) -> Taken? {
        switch try reply.check() {
        case .null: return nil
        case .string(let raw): return Taken(raw: raw, queue: .normal)
        case let other: throw .unexpectedReply("taking a job: \(other)")
        }
    }

    /// `LPUSH`es for `prefetchd enqueue`, in chunks so a million URLs is a few hundred commands.
    public static func enqueue(_ jobs: [String], to list: String, chunk: Int = 1000) -> [[String]] {
        stride(from: 0, to: jobs.count, by: chunk).map { start in
            ["LPUSH", list] + jobs[start..<min(start + chunk, jobs.count)]
        }
    }
}
