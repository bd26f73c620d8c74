import PrefetchCore

/// The periodic work any worker does for the fleet: its heartbeat, returning the jobs of
/// dead workers, moving due retries back to their lists, and expiring failed-set entries.
public enum MaintenanceCommands {
    /// Registers the worker and refreshes its heartbeat (one pipeline). PEXPIRE first: it
    /// keeps an existing heartbeat alive even when a full Redis refuses writes that need
    /// memory; SET NX creates it when it is missing.
    public static func heartbeat(keys: RedisKeys, worker: String, ttlSeconds: Double) -> [[String]] {
        let ms = String(Int(ttlSeconds * 1000))
        return [["PEXPIRE", keys.heartbeat(worker: worker), ms],
                ["SET", keys.heartbeat(worker: worker), "alive", "NX", "PX", ms],
                ["SADD", keys.workers, worker]]
    }

    /// A worker leaving cleanly. Its processing lists should be empty by now; anything
    /// still there (an outcome Redis kept refusing, a take whose reply was lost) goes back to
    /// its queue first, because nobody recovers the lists of a deregistered worker.
    public static func deregister(keys: RedisKeys, worker: String, order: ExecutionOrder) -> [[String]] {
        let lists = Job.Priority.allCases.map { keys.processing(worker: worker, $0) }
        let queues = Job.Priority.allCases.map { keys.queue($0) }
        return [["EVAL", returnAllScript, "6"] + lists + queues + [order == .fifo ? "RIGHT" : "LEFT"],
                ["DEL", keys.heartbeat(worker: worker)], ["SREM", keys.workers, worker], ["DEL", keys.leases(worker: worker)]]
    }

    /// Moves every job of KEYS[1..3] (processing lists) back to KEYS[4..6] (their queues),
    /// onto the end ARGV[1] that workers take from next. Returns how many moved.
    static let returnAllScript = """
        local n = 0
        for i = 1, 3 do
          while redis.call('LMOVE', KEYS[i], KEYS[i + 3], 'RIGHT', ARGV[1]) do n = n + 1 end
        end
        return n
        """

    /// For every registered worker without a heartbeat, returns the jobs in its processing
    /// lists to the end of their queues that workers take from next (RPUSH: FIFO workers
    /// take from the right), counting each recovery inside the job (`"recovered": n`).
    /// A job recovered more than ARGV[2] times is a poison pill: it goes to the dead-letter
    /// list instead. Works from the lists alone, so it does not matter whether the dead
    /// worker ever saw the reply of the move. The dead worker's fetch leases are freed too,
    /// so its URLs are not blocked until the leases expire. ARGV[1] = prefix.
    /// Returns {recovered, dead}.
    static let recoverScript = """
        local prefix, maxRecoveries, now, self = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
        local recovered, dead = 0, 0
        local suffixes = {[':high'] = ':queue:high', [''] = ':queue', [':low'] = ':queue:low'}
        -- Raises the count by editing the text, never by decoding and re-encoding the job,
        -- which would change it (empty lists, numbers) and could fail halfway.
        local function mark(job)
          local text = job:match('^%s*(.-)%s*$')
          if text:sub(1, 1) == '{' then
            local n = tonumber(text:match('"recovered"%s*:%s*(%d+)'))
            if n then
              local out = text:gsub('"recovered"%s*:%s*%d+', '"recovered":' .. (n + 1), 1)
              return out, n + 1
            end
            local rest = text:sub(2)
            if rest:match('^%s*}') then return '{"recovered":1' .. rest, 1 end
            return '{"recovered":1,' .. rest, 1
          end
          return '{"url":' .. cjson.encode(text) .. ',"recovered":1}', 1
        end
        for _, worker in ipairs(redis.call('SMEMBERS', prefix .. ':workers')) do
          if worker ~= self and redis.call('EXISTS', prefix .. ':worker:' .. worker) == 0 then
            for suffix, queue in pairs(suffixes) do
              local list = prefix .. ':processing:' .. worker .. suffix
              -- Each job is moved whole (LMOVE) and only then rewritten in place (LSET), so a
              -- refused write (a full Redis) can leave a job unmarked but never lose it.
              while true do
                local job = redis.call('LINDEX', list, -1)
                if not job then break end
                local marked, count = mark(job)
                if count > maxRecoveries then
                  redis.call('LMOVE', list, prefix .. ':dead', 'RIGHT', 'LEFT')
                  redis.call('LSET', prefix .. ':dead', 0, '{"job":' .. cjson.encode(job) .. ',"worker":' .. cjson.encode(worker)
                    .. ',"time":' .. now .. ',"reason":"recovered ' .. (count - 1)
                    .. ' times from workers that died while holding it (poison pill?)"}')
                  dead = dead + 1
                else
                  redis.call('LMOVE', list, prefix .. queue, 'RIGHT', 'RIGHT')
                  redis.call('LSET', prefix .. queue, -1, marked)
                  recovered = recovered + 1
                end
              end
            end
            local leaseSet = prefix .. ':leases:' .. worker
            for _, lease in ipairs(redis.call('SMEMBERS', leaseSet)) do
              if redis.call('GET', lease) == worker then redis.call('DEL', lease) end
            end
            redis.call('DEL', leaseSet)
            redis.call('SREM', prefix .. ':workers', worker)
          end
        end
        return {recovered, dead}
        """

    /// `worker` is the caller, never treated as dead (its own heartbeat may lag behind
    /// when Redis refuses writes).
    public static func recover(keys: RedisKeys, worker: String, maxRecoveries: Int, now: Double) -> [String] {
        ["EVAL", recoverScript, "0", keys.prefix, String(maxRecoveries), String(now), worker]
    }

    /// Moves up to ARGV[2] retry entries due by ARGV[1] (Unix ms) back to the end of their
    /// list taken next. ARGV[3] = prefix. Returns how many moved.
    static let dueRetriesScript = """
        local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
        local lists = {high = ':queue:high', normal = ':queue', low = ':queue:low'}
        for _, entry in ipairs(due) do
          -- Push before removing: a refused push (full Redis) must leave the entry in place.
          local ok, obj = pcall(cjson.decode, entry)
          if ok and type(obj) == 'table' and type(obj.job) == 'string' then
            redis.call('RPUSH', ARGV[3] .. (lists[obj.queue] or ':queue'), obj.job)
          end
          redis.call('ZREM', KEYS[1], entry)
        end
        return #due
        """

    public static func moveDueRetries(keys: RedisKeys, now: Double, limit: Int = 1000) -> [String] {
        ["EVAL", dueRetriesScript, "1", keys.retry, String(Int64(now * 1000)), String(limit), keys.prefix]
    }

    /// Removes failed-set entries whose TTL has passed. ARGV[1] = now (Unix ms).
    static let expireFailedScript = """
        local urls = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1000)
        for _, url in ipairs(urls) do
          redis.call('ZREM', KEYS[1], url)
          redis.call('SREM', KEYS[2], url)
          redis.call('HDEL', KEYS[3], url)
        end
        return #urls
        """

    public static func expireFailed(keys: RedisKeys, now: Double) -> [String] {
        ["EVAL", expireFailedScript, "3", keys.failedExpiry, keys.failed, keys.failedReasons, String(Int64(now * 1000))]
    }

    /// Extends the leases this worker's jobs rely on, taking back one that was released
    /// meanwhile (never one another worker holds).
    public static func renewLeases(_ leases: [String], keys: RedisKeys, worker: String, seconds: Double) -> [[String]] {
        leases.map { ["EVAL", renewScript, "2", $0, keys.leases(worker: worker), worker, String(Int(seconds * 1000))] }
    }

    static let renewScript = """
        local holder = redis.call('GET', KEYS[1])
        if holder and holder ~= ARGV[1] then return 0 end
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        redis.call('SADD', KEYS[2], KEYS[1])
        return 1
        """

    /// Moves ARGV[1] copies of job ARGV[2] from processing list KEYS[1] back to queue
    /// KEYS[2], atomically (a crash between the two steps must not lose it).
    static let returnScript = """
        local present = 0
        for _, job in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
          if job == ARGV[2] then present = present + 1 end
        end
        local n = math.min(present, tonumber(ARGV[1]))
        -- Copies first, then the removal: a refused push must not lose the job.
        for i = 1, n do redis.call('RPUSH', KEYS[2], ARGV[2]) end
        if n > 0 then redis.call('LREM', KEYS[1], n, ARGV[2]) end
        return n
        """

    /// After a broken connection a worker may not know whether a move happened: the job
    /// could sit in its processing list unknown to it. Compares the list with the jobs the
    /// worker does hold (`known`, counted) and returns the surplus to `queue`.
    public static func reconcile(list: [String], known: [String: Int], processing: String, queue: String) -> [[String]] {
        var present: [String: Int] = [:]
        for job in list { present[job, default: 0] += 1 }
        var commands: [[String]] = []
        for (job, count) in present.sorted(by: { $0.key < $1.key }) {
            let surplus = count - (known[job] ?? 0)
            if surplus > 0 { commands.append(["EVAL", returnScript, "2", processing, queue, String(surplus), job]) }
        }
        return commands
    }
}
