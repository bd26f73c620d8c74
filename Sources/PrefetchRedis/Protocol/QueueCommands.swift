import PrefetchCore

/// How jobs leave the queues. A job moves atomically from its list into the worker's
/// processing list, and leaves that list only when its outcome has been recorded, so a
/// crash between the two leaves it recoverable rather than lost.
public enum QueueCommands {
    /// Moves up to ARGV[1] jobs from KEYS[1..3] (high, normal, low), in that order, each
    /// taken from the end ARGV[2] names, into the worker's matching processing list
    /// KEYS[4..6]. One round trip, atomic. Returns a flat array: list index (1-3), job, ...
    /// A job that is not valid UTF-8 cannot be acknowledged through Swift strings (its
    /// bytes would come back changed), so it goes straight to the dead-letter list.
    static let takeScript = validUTF8 + """
        local want = tonumber(ARGV[1])
        local from = ARGV[2]
        local out = {}
        for list = 1, 3 do
          while want > 0 do
            local job = redis.call('LMOVE', KEYS[list], KEYS[list + 3], from, 'LEFT')
            if not job then break end
            if valid_utf8(job) then
              out[#out + 1] = list
              out[#out + 1] = job
            else
              redis.call('LMOVE', KEYS[list + 3], ARGV[3], 'LEFT', 'LEFT')
              redis.call('LSET', ARGV[3], 0, '{"job":' .. cjson.encode(job) .. ',"reason":"job is not valid UTF-8"}')
            end
            want = want - 1
          end
        end
        return out
        """

    /// After a blocking take whose job did not decode cleanly: dead-letters the head of the
    /// processing list KEYS[1] if it is not valid UTF-8. Returns 1 if it did.
    static let checkHeadScript = validUTF8 + """
        local job = redis.call('LINDEX', KEYS[1], 0)
        if job and not valid_utf8(job) then
          redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'LEFT')
          redis.call('LSET', KEYS[2], 0, '{"job":' .. cjson.encode(job) .. ',"reason":"job is not valid UTF-8"}')
          return 1
        end
        return 0
        """

    static let validUTF8 = """
        local function valid_utf8(s)
          if not s:find('[\\128-\\255]') then return true end
          local i, n = 1, #s
          while i <= n do
            local c = s:byte(i)
            local len, lo, hi = 1, 0x80, 0xBF
            if c < 0x80 then len = 1
            elseif c >= 0xC2 and c <= 0xDF then len = 2
            elseif c >= 0xE0 and c <= 0xEF then
              len = 3
              if c == 0xE0 then lo = 0xA0 elseif c == 0xED then hi = 0x9F end
            elseif c >= 0xF0 and c <= 0xF4 then
              len = 4
              if c == 0xF0 then lo = 0x90 elseif c == 0xF4 then hi = 0x8F end
            else return false end
            for k = 1, len - 1 do
              local b = s:byte(i + k)
              if not b then return false end
              if k == 1 then
                if b < lo or b > hi then return false end
              elseif b < 0x80 or b > 0xBF then return false end
            end
            i = i + len
          end
          return true
        end

        """

    static let listsByPriority: [Job.Priority] = [.high, .normal, .low]

    /// The end of each list a worker takes from: the right (oldest, for `LPUSH` producers)
    /// in FIFO order, the left (newest) in LIFO order.
    static func end(_ order: ExecutionOrder) -> String { order == .fifo ? "RIGHT" : "LEFT" }

    public static func takeBatch(_ keys: RedisKeys, worker: String, count: Int, order: ExecutionOrder) -> [String] {
        ["EVAL", takeScript, "6", keys.queue(.high), keys.queue(.normal), keys.queue(.low),
         keys.processing(worker: worker, .high), keys.processing(worker: worker, .normal),
         keys.processing(worker: worker, .low), String(count), end(order), keys.dead]
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

    /// Run after a blocking take returned a job with U+FFFD in it (see `checkHeadScript`).
    public static func checkBlockingTake(_ keys: RedisKeys, worker: String) -> [String] {
        ["EVAL", checkHeadScript, "2", keys.processing(worker: worker, .normal), keys.dead]
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
