import PrefetchCore
import Synchronization

extension Worker {
    /// Counts of outcomes recorded so far.
    public struct Statistics: Sendable, Equatable, CustomStringConvertible {
        public var downloaded = 0
        public var fromCache = 0
        public var coalesced = 0
        public var failed = 0
        public var retried = 0
        public var skipped = 0
        public var deferred = 0
        public var deadLettered = 0
        public var returned = 0
        public var expired = 0

        public var description: String {
            "downloaded \(downloaded), from cache \(fromCache), coalesced \(coalesced), failed \(failed), "
                + "retrying \(retried), skipped \(skipped), deferred \(deferred), expired \(expired), dead-lettered \(deadLettered), returned \(returned)"
        }

        mutating func count(_ outcome: Outcome) {
            switch outcome.result {
            case .completed(let c):
                switch c.source {
                case .cache, .revalidated: fromCache += 1
                case .coalesced: coalesced += 1
                case .network: downloaded += 1
                }
            case .failed: failed += 1
            case .retrying: retried += 1
            case .skipped: skipped += 1
            case .deferred: deferred += 1
            case .deadLettered: deadLettered += 1
            case .returnToQueue: returned += 1
            case .expired: expired += 1
            case .started: break
            }
        }
    }
}

/// A reference to the counters, so the outcome writer's callback can share them.
final class StatisticsBox: Sendable {
    let value = Mutex(Worker.Statistics())
}
