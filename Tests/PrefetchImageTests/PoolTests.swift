import Foundation
import Synchronization
import Testing
@testable import PrefetchImage

private final class Counters: Sendable {
    let done = Atomic<Int>(0)
    let running = Atomic<Int>(0)
    let maxRunning = Atomic<Int>(0)

    func enter() {
        let now = running.add(1, ordering: .relaxed).newValue
        var seen = maxRunning.load(ordering: .relaxed)
        while now > seen {
            let (exchanged, original) = maxRunning.compareExchange(expected: seen, desired: now, ordering: .relaxed)
            if exchanged { break }
            seen = original
        }
    }

    func leave() {
        running.subtract(1, ordering: .relaxed)
        done.add(1, ordering: .relaxed)
    }
}

@Suite struct PoolTests {
    @Test func runsEverythingWithBoundedConcurrency() {
        let pool = ImageProcessingPool(threads: 3, maxQueued: 4)
        let counters = Counters()
        let jpeg = Fixture.bytes("progressive.jpg")
        for _ in 0..<60 {
            pool.submit {
                counters.enter()
                _ = try? verify(jpeg, .full)
                usleep(200)
                counters.leave()
            }
        }
        pool.shutdown()
        #expect(counters.done.load(ordering: .relaxed) == 60)
        #expect(counters.maxRunning.load(ordering: .relaxed) <= 3)
        #expect(pool.submit {} == false)
    }

    @Test func trySubmitRefusesWhenFull() {
        let pool = ImageProcessingPool(threads: 1, maxQueued: 2)
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        #expect(pool.trySubmit { started.signal(); gate.wait() })
        started.wait() // the only thread is now busy
        #expect(pool.trySubmit {})
        #expect(pool.trySubmit {})
        #expect(pool.trySubmit {} == false)
        #expect(pool.load.queued == 2 && pool.load.running == 1)
        gate.signal()
        pool.shutdown()
        #expect(pool.load.queued == 0 && pool.load.running == 0)
    }

    @Test func runReturnsResultsAndTypedErrors() async throws {
        let pool = ImageProcessingPool()
        #expect(pool.threadCount == ProcessInfo.processInfo.activeProcessorCount)
        let bytes = Fixture.bytes("rgba.png")
        let info = try await pool.run { () throws(ImageError) -> ImageInfo in try verify(bytes, .full) }
        #expect(info == ImageInfo(format: .png, width: 64, height: 48))
        let html = Array("<html></html>".utf8)
        await #expect(throws: ImageError.notAnImage(detected: "an HTML document")) {
            try await pool.run { () throws(ImageError) -> ImageInfo in try verify(html, .structure) }
        }
        // Many concurrent awaits, more than the queue's capacity: none blocks a thread.
        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for side in 1...40 {
                group.addTask {
                    try await pool.run { () throws(ImageError) -> Int in try thumbnail(bytes, longestSide: side).width }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(sizes.sorted() == Array(1...40))
        pool.shutdown()
    }
}
