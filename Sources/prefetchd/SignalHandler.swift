import Dispatch
import Foundation
import Synchronization

/// SIGTERM and SIGINT: the first runs `onFirst` on its own thread, any later one `onSecond`.
final class SignalHandler {
    private final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    private let sources: [any DispatchSourceSignal]

    init(onFirst: @escaping @Sendable () -> Void, onSecond: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "prefetchd.signals")
        let count = Count()
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            source.setEventHandler {
                if count.value.add(1, ordering: .relaxed).newValue == 1 {
                    Thread { onFirst() }.start()
                } else {
                    onSecond()
                }
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }
}
