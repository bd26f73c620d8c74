import Foundation
import Synchronization

/// A named thread that runs one loop until asked to stop, and a way to wait for it to
/// finish. The worker's long-lived parts (intake, housekeeper, janitor) each own one, so
/// their blocking calls never touch Swift's cooperative pool.
final class DedicatedThread: Sendable {
    let name: String
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(name: String) {
        self.name = name
    }

    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// Runs `body` on the thread; `body` should return soon after `isStopping` turns true.
    func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [finished] in
            body()
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Asks the loop to stop, lets `wake` interrupt whatever it waits on, then waits for it.
    func stop(wake: () -> Void = {}) {
        stopping.store(true, ordering: .relaxed)
        wake()
        finished.wait()
    }
}
