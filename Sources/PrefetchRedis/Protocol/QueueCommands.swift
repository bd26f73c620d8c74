import PrefetchCore

/// How jobs leave the queue. A job moves atomically from the queue into the worker's
/// processing list, and leaves that list only when its outcome has been recorded, so a
/// crash between the two leaves it recoverable rather than lost.
public enum QueueCommands {
    /// Moves up to ARGV[1] jobs from KEYS[1] (taken from its right end: FIFO for LPUSH
    /// producers) to KEYS[2] in one round trip. Returns the moved jobs, oldest first.
    static let takeScript = """
        local moved = {}
        for i = 1, tonumber(ARGV[1]) do
          local job = redis.call('LMOVE', KEYS[1], KEYS[2], 'RIGHT', 'LEFT')
          if not job then break end
          moved[#moved + 1] = job
        end
        return moved
        """

    public static func takeBatch(_ keys: RedisKeys, worker: String, count: Int) -> [String] {
        ["EVAL", takeScript, "2", keys.queue, keys.processing(worker: worker), String(count)]
    }

    /// Waits up to `timeout` seconds for one job. Keep `timeout` well below the socket timeout.
    public static func takeBlocking(_ keys: RedisKeys, worker: String, timeout: Double) -> [String] {
        ["BLMOVE", keys.queue, keys.processing(worker: worker), "RIGHT", "LEFT", String(timeout)]
    }

    /// Jobs from a `takeBatch` or `takeBlocking` reply.
    public static func jobs(from reply: RedisReply) throws(RedisError) -> [String] {
        switch try reply.check() {
        case .null: return []
        case .string(let job): return [job]
        case .array(let items): return items.compactMap(\.string)
        case let other: throw .unexpectedReply("taking jobs: \(other)")
        }
    }

    /// `LPUSH`es for `prefetchd enqueue`, in chunks so a million URLs is a few hundred commands.
    public static func enqueue(_ jobs: [String], to list: String, chunk: Int = 1000) -> [[String]] {
        stride(from: 0, to: jobs.count, by: chunk).map { start in
            ["LPUSH", list] + jobs[start..<min(start + chunk, jobs.count)]
        }
    }
}
