import Foundation
import PrefetchRedis

/// A redis-server of a test's own (for tests that stop and restart it), on a free
/// loopback port, with append-only persistence so a restart keeps the data.
public final class RedisServerProcess {
    public let port: Int
    public let directory: String
    private var process: Process?

    public init() throws {
        port = try Self.freePort()
        directory = try TestEnvironment.temporaryDirectory("redis")
        try start()
    }

    public var url: RedisURL { RedisURL(endpoint: .tcp(host: "127.0.0.1", port: port)) }

    public func start() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["redis-server", "--bind", "127.0.0.1", "--port", String(port), "--dir", directory,
                       "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--logfile", directory + "/redis.log"]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        process = p
        guard waitUntil(timeout: 10, { (try? RedisConnection(url: url).command(["PING"]).string) == "PONG" }) else {
            throw TestEnvironment.Missing(description: "redis-server did not start on port \(port)")
        }
    }

    /// SHUTDOWN (persists the data) and wait for the process to go.
    public func stop() {
        _ = try? RedisConnection(url: url).command(["SHUTDOWN"])
        if let p = process {
            if !waitUntil(timeout: 10, { !p.isRunning }) { p.terminate() }
            p.waitUntilExit()
        }
        process = nil
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok else { throw TestEnvironment.Missing(description: "no free port") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
