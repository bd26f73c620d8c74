import Foundation

/// A built executable of this package (`prefetchd` by default), run as a child process
/// like an operator would.
public final class PrefetchdProcess {
    public let process = Process()
    private let stderrPipe = Pipe()
    private let stdoutPipe = Pipe()

    /// `$PREFETCH_TEST_BINARY` for prefetchd, else the tool built beside the test bundle.
    public static func binaryPath(_ tool: String = "prefetchd", file: String = #filePath) throws -> String {
        if tool == "prefetchd", let path = ProcessInfo.processInfo.environment["PREFETCH_TEST_BINARY"] { return path }
        var candidates: [String] = []
        for arg in CommandLine.arguments where arg.contains(".xctest") {
            let prefix = arg.components(separatedBy: ".xctest")[0]
            candidates.append((prefix as NSString).deletingLastPathComponent + "/" + tool)
        }
        let root = URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.path + "/.build/debug/" + tool)
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestEnvironment.Missing(description: "prefetchd binary not found (tried \(candidates)); run swift build first")
        }
        return found
    }

    public init(_ arguments: [String], environment: [String: String] = [:], tool: String = "prefetchd") throws {
        process.executableURL = URL(fileURLWithPath: try Self.binaryPath(tool))
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        process.environment = env
        process.standardError = stderrPipe
        process.standardOutput = stdoutPipe
        try process.run()
    }

    public var isRunning: Bool { process.isRunning }

    /// Sends a signal and waits for the exit status (bounded by `timeout`).
    public func signal(_ sig: Int32, timeout: Double = 30) -> Int32? {
        kill(process.processIdentifier, sig)
        guard waitUntil(timeout: timeout, { !process.isRunning }) else { return nil }
        return process.terminationStatus
    }

    /// Everything the process wrote to stdout, as text.
    public func standardOutput() -> String {
        String(decoding: standardOutputData(), as: UTF8.self)
    }

    /// Everything the process wrote to stdout, byte for byte (reads until it closes it).
    public func standardOutputData() -> Data {
        stdoutPipe.fileHandleForReading.readDataToEndOfFile()
    }

    /// Everything the process wrote to stderr (call after it exited).
    public func standardError() -> String {
        String(decoding: stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
