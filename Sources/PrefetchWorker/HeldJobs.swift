import PrefetchCore
import Synchronization

/// What this worker holds: jobs taken and not yet recorded (counted per list, since the
/// same string may be queued twice), and the cross-worker leases its jobs rely on.
final class HeldJobs: Sendable {
    private struct State {
        var jobs: [Job.Priority: [String: Int]] = [:]
        var leases: [String: Int] = [:]
    }

    private let state = Mutex(State())

    func add(_ raw: String, queue: Job.Priority) {
        state.withLock { $0.jobs[queue, default: [:]][raw, default: 0] += 1 }
    }

    func remove(_ raw: String, queue: Job.Priority) {
        state.withLock { s in
            guard let n = s.jobs[queue]?[raw] else { return }
            s.jobs[queue]![raw] = n > 1 ? n - 1 : nil
        }
    }

    func jobs(in queue: Job.Priority) -> [String: Int] {
        state.withLock { $0.jobs[queue] ?? [:] }
    }

    func retainLease(_ key: String) {
        state.withLock { $0.leases[key, default: 0] += 1 }
    }

    /// Returns true when no job of this worker relies on the lease any more.
    func releaseLease(_ key: String) -> Bool {
        state.withLock { s in
            guard let n = s.leases[key] else { return false }
            s.leases[key] = n > 1 ? n - 1 : nil
            return n == 1
        }
    }

    var leases: [String] { state.withLock { Array($0.leases.keys) } }
}
