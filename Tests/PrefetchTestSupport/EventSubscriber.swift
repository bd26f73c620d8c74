import Foundation
import PrefetchRedis
import Synchronization

/// Collects messages from a pub/sub channel on its own thread and connection.
public final class EventSubscriber: Sendable {
    private let messages = Mutex<[String]>([])
    private let ready = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let fd = Atomic<Int32>(-1)

    public init(url: RedisURL, channel: String) throws {
        let connection = try RedisConnection(url: url, timeout: 3600)
        let box = ConnectionBox(connection)
        Thread { [self] in listen(box, channel: channel) }.start()
        ready.wait()
    }

    /// Messages received so far, parsed as JSON objects.
    public var events: [[String: Any]] {
        messages.withLock { $0 }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    public var count: Int { messages.withLock { $0.count } }

    public func stop() {
        shutdown(fd.load(ordering: .relaxed), Int32(SHUT_RDWR))
        finished.wait()
    }

    private func listen(_ box: ConnectionBox, channel: String) {
        let conn = box.connection
        fd.store(conn.fileDescriptor, ordering: .relaxed)
        _ = try? conn.command(["SUBSCRIBE", channel])
        ready.signal()
        while let reply = try? conn.readReply() {
            if let parts = reply.array, parts.count == 3, parts[0].string == "message", let body = parts[2].string {
                messages.withLock { $0.append(body) }
            }
        }
        finished.signal()
    }
}

/// Moves a connection to the listening thread, which then owns it alone.
private struct ConnectionBox: @unchecked Sendable {
    let connection: RedisConnection
    init(_ connection: RedisConnection) { self.connection = connection }
}
