import Foundation

/// Bounds how many jobs one worker holds at once (taken from Redis and not yet recorded),
/// so it only takes what it can start soon and idle workers elsewhere get the rest.
final class InFlightGate: @unchecked Sendable {
    // @unchecked: all state is guarded by `condition`.
    private let condition = NSCondition()
    private var inFlight = 0
    let limit: Int

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Waits until at least one slot is free (or `timeout` passes); returns the free count.
    func waitForFreeSlots(timeout: Double) -> Int {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while inFlight >= limit {
            if !condition.wait(until: deadline) { break }
        }
        return max(0, limit - inFlight)
    }

    func acquire(_ count: Int) {
        condition.lock()
        inFlight += count
        condition.unlock()
    }

    func release(_ count: Int) {
        condition.lock()
        inFlight -= count
        condition.broadcast()
        condition.unlock()
    }

    var current: Int {
        condition.lock()
        defer { condition.unlock() }
        return inFlight
    }

    /// Waits until nothing is in flight; false if `timeout` passed first.
    func waitUntilEmpty(timeout: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while inFlight > 0 {
            if !condition.wait(until: deadline) { return inFlight == 0 }
        }
        return true
    }
}
