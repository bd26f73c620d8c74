import Testing
@testable import PrefetchCore

@Suite struct SchedulerTests {
    typealias S = Scheduler<String>

    /// Starts everything startable and returns the keys in start order.
    func drain(_ s: inout S) -> [String] {
        var order: [String] = []
        while let task = s.startNext() {
            order.append(task.key)
            _ = s.finish(key: task.key)
        }
        return order
    }

    @Test func fifoWithinOnePriority() {
        var s = S(configuration: .init(maxRunning: 1, order: .fifo))
        for k in ["a", "b", "c"] { _ = s.add(key: k, host: "h", priority: .normal, payload: k) }
        #expect(drain(&s) == ["a", "b", "c"])
    }

    @Test func lifoWithinOnePriority() {
        var s = S(configuration: .init(maxRunning: 1, order: .lifo))
        for k in ["a", "b", "c"] { _ = s.add(key: k, host: "h", priority: .normal, payload: k) }
        #expect(drain(&s) == ["c", "b", "a"])
    }

    @Test(arguments: ExecutionOrder.allCases)
    func priorityBeforeOrder(order: ExecutionOrder) {
        var s = S(configuration: .init(maxRunning: 1, order: order))
        _ = s.add(key: "low1", host: "h", priority: .low, payload: "")
        _ = s.add(key: "n1", host: "h", priority: .normal, payload: "")
        _ = s.add(key: "high1", host: "h", priority: .high, payload: "")
        _ = s.add(key: "n2", host: "h", priority: .normal, payload: "")
        _ = s.add(key: "high2", host: "h", priority: .high, payload: "")
        _ = s.add(key: "low2", host: "h", priority: .low, payload: "")
        let expected = order == .fifo
            ? ["high1", "high2", "n1", "n2", "low1", "low2"]
            : ["high2", "high1", "n2", "n1", "low2", "low1"]
        #expect(drain(&s) == expected)
    }

    @Test func runningCapHoldsTheRestBack() {
        var s = S(configuration: .init(maxRunning: 2))
        for k in ["a", "b", "c"] { _ = s.add(key: k, host: "h\(k)", priority: .normal, payload: k) }
        #expect(s.startNext()?.key == "a")
        #expect(s.startNext()?.key == "b")
        #expect(s.startNext() == nil)
        #expect(s.waitingCount == 1 && s.runningCount == 2)
        _ = s.finish(key: "a")
        #expect(s.startNext()?.key == "c")
    }

    @Test func perHostCapSkipsToOtherHosts() {
        var s = S(configuration: .init(maxRunning: 10, maxPerHost: 1))
        _ = s.add(key: "x1", host: "x", priority: .normal, payload: "")
        _ = s.add(key: "x2", host: "x", priority: .normal, payload: "")
        _ = s.add(key: "y1", host: "y", priority: .normal, payload: "")
        #expect(s.startNext()?.key == "x1")
        #expect(s.startNext()?.key == "y1") // x2 must wait for x1
        #expect(s.startNext() == nil)
        _ = s.finish(key: "x1")
        #expect(s.startNext()?.key == "x2")
    }

    @Test func sameKeyJoinsOneTask() {
        var s = S()
        #expect(s.add(key: "k", host: "h", priority: .normal, payload: "j1") == .newTask)
        #expect(s.add(key: "k", host: "h", priority: .normal, payload: "j2") == .joinedWaiting(raisedPriority: false))
        let task = s.startNext()
        #expect(task?.payloads == ["j1", "j2"])
        #expect(s.add(key: "k", host: "h", priority: .normal, payload: "j3") == .joinedRunning)
        #expect(s.startNext() == nil)
        #expect(s.finish(key: "k") == ["j1", "j2", "j3"])
        #expect(s.isIdle)
        // Finished keys start afresh.
        #expect(s.add(key: "k", host: "h", priority: .normal, payload: "j4") == .newTask)
    }

    @Test func joiningWithHigherPriorityRaisesTheTask() {
        var s = S(configuration: .init(maxRunning: 1))
        _ = s.add(key: "a", host: "h", priority: .normal, payload: "a")
        _ = s.add(key: "b", host: "h", priority: .low, payload: "b-low")
        _ = s.add(key: "c", host: "h", priority: .normal, payload: "c")
        #expect(s.add(key: "b", host: "h", priority: .high, payload: "b-high") == .joinedWaiting(raisedPriority: true))
        #expect(s.add(key: "c", host: "h", priority: .low, payload: "c-low") == .joinedWaiting(raisedPriority: false))
        #expect(drain(&s) == ["b", "a", "c"])
    }

    @Test func shutdownReturnsWaitingJobsInArrivalOrder() {
        var s = S(configuration: .init(maxRunning: 1))
        _ = s.add(key: "a", host: "h", priority: .normal, payload: "a")
        _ = s.add(key: "b", host: "h", priority: .normal, payload: "b1")
        _ = s.add(key: "b", host: "h", priority: .normal, payload: "b2")
        _ = s.add(key: "c", host: "h", priority: .high, payload: "c")
        #expect(s.startNext()?.key == "c")
        #expect(s.removeAllWaiting() == ["a", "b1", "b2"])
        #expect(s.startNext() == nil)
        #expect(s.finish(key: "c") == ["c"])
    }

    @Test func manyRaisesDoNotDuplicateStarts() {
        var s = S(configuration: .init(maxRunning: 100))
        for i in 0..<50 { _ = s.add(key: "k\(i)", host: "h", priority: .low, payload: "") }
        for i in 0..<50 { _ = s.add(key: "k\(i)", host: "h", priority: .normal, payload: "") }
        for i in 0..<50 { _ = s.add(key: "k\(i)", host: "h", priority: .high, payload: "") }
        var started: [String] = []
        while let t = s.startNext() { started.append(t.key) }
        #expect(started == (0..<50).map { "k\($0)" })
    }

    @Test func rateLimiterSpacesStarts() {
        var r = RateLimiter(rate: 10, burst: 2)
        let first = r.tryTake(now: 0), second = r.tryTake(now: 0), third = r.tryTake(now: 0)
        #expect(first && second && !third)
        let delay = r.delay(now: 0)
        #expect(abs(delay - 0.1) < 1e-9)
        let later = r.tryTake(now: 0.1), tooSoon = r.tryTake(now: 0.15)
        #expect(later && !tooSoon)
        var unlimited = RateLimiter(rate: 0)
        var granted = 0
        for _ in 0..<1000 where unlimited.tryTake(now: 0) { granted += 1 }
        #expect(granted == 1000)
    }
}

@Suite struct SchedulerExpiryTests {
    @Test func expiredJobsLeaveWaitingAndRunningTasksAlike() {
        var s = Scheduler<String>(configuration: .init(maxRunning: 1))
        _ = s.add(key: "run", host: "h", priority: .normal, payload: "run-keep")
        _ = s.add(key: "run", host: "h", priority: .normal, payload: "run-old")
        #expect(s.startNext()?.key == "run")
        _ = s.add(key: "wait", host: "h", priority: .normal, payload: "wait-old")
        _ = s.add(key: "both", host: "h", priority: .normal, payload: "both-old")
        _ = s.add(key: "both", host: "h", priority: .normal, payload: "both-keep")
        let removed = s.removeExpired { $0.hasSuffix("-old") }
        #expect(Set(removed) == ["run-old", "wait-old", "both-old"])
        // The running transfer goes on for the job still sharing it.
        #expect(s.runningCount == 1)
        #expect(s.finish(key: "run") == ["run-keep"])
        // A waiting task with no job left is gone; the other keeps its remaining job.
        #expect(s.waitingCount == 1)
        #expect(s.startNext()?.payloads == ["both-keep"])
    }
}
