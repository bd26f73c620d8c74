/// The downloader's backlog: which transfer starts next, and which jobs share a transfer.
///
/// - Order: highest priority first; within one priority, `fifo` (oldest first) or `lifo`
///   (newest first).
/// - Coalescing: a job whose key is already waiting or running joins that task instead of
///   adding one. Joining a waiting task with a higher priority raises the task.
/// - Caps: at most `maxRunning` tasks at once, and at most `maxPerHost` for one host
///   (0 = no per-host cap). A task whose host is at its cap is skipped, not blocking others.
///
/// Pure and single-owner (the downloader thread): no locks, no clocks, unit-tested alone.
public struct Scheduler<Payload> {
    public struct Configuration: Sendable {
        /// Default: 64.
        public var maxRunning = 64
        /// Default: 0 (no per-host cap).
        public var maxPerHost = 0
        /// Default: `.fifo`.
        public var order = ExecutionOrder.fifo

        public init(maxRunning: Int = 64, maxPerHost: Int = 0, order: ExecutionOrder = .fifo) {
            self.maxRunning = max(1, maxRunning)
            self.maxPerHost = max(0, maxPerHost)
            self.order = order
        }
    }

    public struct Task {
        public let key: String
        public let host: String
        public fileprivate(set) var priority: Job.Priority
        /// Every job that shares this transfer, the one that created it first.
        public fileprivate(set) var payloads: [Payload]
        fileprivate var sequence: Int
    }

    public enum AddResult: Equatable, Sendable {
        case newTask
        case joinedWaiting(raisedPriority: Bool)
        case joinedRunning
    }

    public let configuration: Configuration
    private var waiting: [String: Task] = [:]
    private var running: [String: Task] = [:]
    private var runningPerHost: [String: Int] = [:]
    /// Keys by priority, in arrival order. Entries whose task moved or started are stale
    /// (their sequence no longer matches) and are skipped.
    private var lanes: [[(key: String, sequence: Int)]] = Array(repeating: [], count: Job.Priority.allCases.count)
    private var nextSequence = 0

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    public var waitingCount: Int { waiting.count }
    public var runningCount: Int { running.count }
    public var isIdle: Bool { waiting.isEmpty && running.isEmpty }

    public mutating func add(key: String, host: String, priority: Job.Priority, payload: Payload) -> AddResult {
        if running[key] != nil {
            running[key]!.payloads.append(payload)
            return .joinedRunning
        }
        if var task = waiting[key] {
            task.payloads.append(payload)
            var raised = false
            if priority > task.priority {
                task.priority = priority
                task.sequence = takeSequence()
                lanes[priority.rawValue].append((key, task.sequence))
                raised = true
            }
            waiting[key] = task
            return .joinedWaiting(raisedPriority: raised)
        }
        let task = Task(key: key, host: host, priority: priority, payloads: [payload], sequence: takeSequence())
        waiting[key] = task
        lanes[priority.rawValue].append((key, task.sequence))
        return .newTask
    }

    /// The next task allowed to start, now marked running; `nil` when none may start.
    public mutating func startNext() -> Task? {
        guard running.count < configuration.maxRunning else { return nil }
        for lane in stride(from: lanes.count - 1, through: 0, by: -1) {
            if let task = take(from: lane) { return task }
        }
        return nil
    }

    /// Marks a running task finished; returns every job that shared it.
    public mutating func finish(key: String) -> [Payload] {
        guard let task = running.removeValue(forKey: key) else { return [] }
        let remaining = (runningPerHost[task.host] ?? 1) - 1
        runningPerHost[task.host] = remaining > 0 ? remaining : nil
        return task.payloads
    }

    /// Takes out the jobs for which `isExpired` holds, from waiting and running tasks alike.
    /// A waiting task left with no job is dropped; a running task keeps running for the
    /// jobs still sharing it (and, if none is left, to fill the cache): one job's expiry
    /// never cancels a transfer others joined.
    public mutating func removeExpired(_ isExpired: (Payload) -> Bool) -> [Payload] {
        var removed: [Payload] = []
        for key in Array(waiting.keys) {
            var task = waiting[key]!
            let before = task.payloads.count
            removed += task.payloads.filter(isExpired)
            task.payloads.removeAll(where: isExpired)
            if task.payloads.isEmpty {
                waiting[key] = nil
            } else if task.payloads.count != before {
                waiting[key] = task
            }
        }
        for key in Array(running.keys) {
            removed += running[key]!.payloads.filter(isExpired)
            running[key]!.payloads.removeAll(where: isExpired)
        }
        return removed
    }

    /// Empties the backlog (not running tasks), for shutdown; returns the jobs it held.
    public mutating func removeAllWaiting() -> [Payload] {
        let all = waiting.values.sorted { $0.sequence < $1.sequence }.flatMap(\.payloads)
        waiting.removeAll()
        for i in lanes.indices { lanes[i].removeAll() }
        return all
    }

    private mutating func take(from lane: Int) -> Task? {
        compact(lane)
        let entries = lanes[lane]
        let indices: [Int] = configuration.order == .fifo ? Array(entries.indices) : entries.indices.reversed()
        for i in indices {
            let entry = entries[i]
            guard let task = waiting[entry.key], task.sequence == entry.sequence else { continue }
            if configuration.maxPerHost > 0, (runningPerHost[task.host] ?? 0) >= configuration.maxPerHost { continue }
            lanes[lane].remove(at: i)
            waiting[entry.key] = nil
            running[entry.key] = task
            runningPerHost[task.host, default: 0] += 1
            return task
        }
        return nil
    }

    /// Drops stale entries once they are a large share of a lane, keeping scans short.
    private mutating func compact(_ lane: Int) {
        guard lanes[lane].count > 32, lanes[lane].count > 2 * waiting.count else { return }
        lanes[lane].removeAll { entry in waiting[entry.key]?.sequence != entry.sequence }
    }

    private mutating func takeSequence() -> Int {
        nextSequence += 1
        return nextSequence
    }
}

/// Which job a worker starts next among those of equal priority, and which end of each
/// Redis list it takes from.
public enum ExecutionOrder: String, Sendable, CaseIterable {
    /// Oldest first: take from the right of lists users `LPUSH` to. The default.
    case fifo
    /// Newest first: take from the left.
    case lifo
}
