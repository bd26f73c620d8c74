import PrefetchCore

/// The periodic work any worker does for the fleet: its heartbeat, returning the jobs of
/// dead workers, moving due retries back to their lists, and expiring failed-set entries.
public enum MaintenanceCommands {
    /// Registers the worker and refreshes its heartbeat (one pipeline).
    public static func heartbeat(keys: RedisKeys, worker: String, ttlSeconds: Double) -> [[String]] {
        [["SET", keys.heartbeat(worker: worker), "alive", "PX", String(Int(ttlSeconds * 1000))],
         ["SADD", keys.workers, worker]]
    }

    /// A worker leaving cleanly: its lists are empty by now.
    public static func deregister(keys: RedisKeys, worker: String) -> [[String]] {
        [["DEL", keys.heartbeat(worker: worker)], ["SREM", keys.workers, worker], ["DEL", keys.leases(worker: worker)]]
    }

    /// For every registered worker without a heartbeat, returns the jobs in its processing
    /// lists to the end of their queues that workers take from next (RPUSH: FIFO workers
    /// take from the right), counting each recovery inside the job (`"recovered": n`).
    /// A job recovered more than ARGV[2] times is a poison pill: it goes to the dead-letter
    /// list instead. Works from the lists alone, so it does not matter whether the dead
    /// worker ever saw the reply of the move. The dead worker's fetch leases are freed too,
    /// so its URLs are not blocked until the leases expire. ARGV[1] = prefix.
    /// Returns {recovered, dead}.
    static let recoverScript = """
        local prefix, maxRecoveries, now = ARGV[1], tonumber(ARGV[2]), ARGV[3]
        local recovered, dead = 0, 0
        local suffixes = {[':high'] = ':queue:high', [''] = ':queue', [':low'] = ':queue:low'}
        for _, worker in ipairs(redis.call('SMEMBERS', prefix .. ':workers')) do
          if redis.call('EXISTS', prefix .. ':worker:' .. worker) == 0 then
            for suffix, queue in pairs(suffixes) do
              local list = prefix .. ':processing:' .. worker .. suffix
              while true do
                local job = redis.call('RPOP', list)
                if not job then break end
                local ok, obj = pcall(cjson.decode, job)
                if not ok or type(obj) ~= 'table' then obj = {url = job} end
                obj.recovered = (tonumber(obj.recovered) or 0) + 1
                if obj.recovered > maxRecoveries then
                  redis.call('LPUSH', prefix .. ':dead', cjson.encode({job = job, worker = worker, time = tonumber(now),
                    reason = 'recovered ' .. (obj.recovered - 1) .. ' times from workers that died while holding it (poison pill?)'}))
                  dead = dead + 1
                else
                  redis.call('RPUSH', prefix .. queue, cjson.encode(obj))
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

    public static func recover(keys: RedisKeys, maxRecoveries: Int, now: Double) -> [String] {
        ["EVAL", recoverScript, "0", keys.prefix, String(maxRecoveries), String(now)]
    }

    /// Moves up to ARGV[2] retry entries due by ARGV[1] (Unix ms) back to the end of their
    /// list taken next. ARGV[3] = prefix. Returns how many moved.
    static let dueRetriesScript = """
        local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
        local lists = {high = ':queue:high', normal = ':queue', low = ':queue:low'}
        for _, entry in ipairs(due) do
          redis.call('ZREM', KEYS[1], entry)
          local ok, obj = pcall(cjson.decode, entry)
          if ok and type(obj) == 'table' and obj.job then
            redis.call('RPUSH', ARGV[3] .. (lists[obj.queue] or ':queue'), obj.job)
          end
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

    /// Extends the leases this worker holds.
    public static func renewLeases(_ leases: [String], seconds: Double) -> [[String]] {
        leases.map { ["PEXPIRE", $0, String(Int(seconds * 1000))] }
    }

    /// Moves ARGV[1] copies of job ARGV[2] from processing list KEYS[1] back to queue
    /// KEYS[2], atomically (a crash between the two steps must not lose it).
    static let returnScript = """
        local n = redis.call('LREM', KEYS[1], tonumber(ARGV[1]), ARGV[2])
        for i = 1, n do redis.call('RPUSH', KEYS[2], ARGV[2]) end
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
