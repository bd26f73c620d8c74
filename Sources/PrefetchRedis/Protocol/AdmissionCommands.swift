import PrefetchCore

/// Decides, in one round trip for a whole batch, which jobs may be fetched: a job for a URL
/// in the failed set is skipped (unless it says `retry_failed`), and a job whose key is
/// being fetched by another worker waits. Otherwise this worker takes (or already holds)
/// the key's lease, so duplicate jobs across the fleet cause one download.
public enum AdmissionCommands {
    public enum Verdict: Int, Sendable {
        case proceed = 0
        case failedBefore = 1
        case leasedElsewhere = 2
    }

    public struct Candidate: Sendable {
        public let url: String
        public let leaseKey: String
        public let retryFailed: Bool

        public init(url: String, leaseKey: String, retryFailed: Bool) {
            self.url = url
            self.leaseKey = leaseKey
            self.retryFailed = retryFailed
        }
    }

    /// KEYS[1] = failed set, KEYS[2] = this worker's lease set.
    /// ARGV = worker, lease ms, then url, lease key, retry flag per job.
    static let script = """
        local worker, ttl = ARGV[1], ARGV[2]
        local out = {}
        for i = 3, #ARGV, 3 do
          local url, lease, retry = ARGV[i], ARGV[i + 1], ARGV[i + 2]
          if retry == '0' and redis.call('SISMEMBER', KEYS[1], url) == 1 then
            out[#out + 1] = 1
          else
            local holder = redis.call('GET', lease)
            if not holder or holder == worker then
              redis.call('SET', lease, worker, 'PX', ttl)
              redis.call('SADD', KEYS[2], lease)
              out[#out + 1] = 0
            else
              out[#out + 1] = 2
            end
          end
        end
        return out
        """

    public static func admit(_ candidates: [Candidate], keys: RedisKeys, worker: String, leaseSeconds: Double) -> [String] {
        var args = ["EVAL", script, "2", keys.failed, keys.leases(worker: worker), worker, String(Int(leaseSeconds * 1000))]
        args.reserveCapacity(args.count + candidates.count * 3)
        for c in candidates {
            args += [c.url, c.leaseKey, c.retryFailed ? "1" : "0"]
        }
        return args
    }

    public static func verdicts(from reply: RedisReply, count: Int) throws(RedisError) -> [Verdict] {
        guard let items = try reply.check().array, items.count == count else {
            throw .unexpectedReply("admission: expected \(count) verdicts")
        }
        return items.map { Verdict(rawValue: $0.integer ?? 0) ?? .proceed }
    }
}
