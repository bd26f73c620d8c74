import Foundation
import Synchronization

/// Line-oriented logging to stderr. Callers pass redacted URLs only (`NormalizedURL.string`),
/// so credentials never reach a log line.
public enum Log {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }

        public init?(name: String) {
            switch name.lowercased() {
            case "debug": self = .debug
            case "info": self = .info
            case "warning", "warn": self = .warning
            case "error": self = .error
            default: return nil
            }
        }
    }

    private static let threshold = Atomic<Int>(Level.info.rawValue)

    public static func setLevel(_ level: Level) { threshold.store(level.rawValue, ordering: .relaxed) }

    public static func debug(_ message: @autoclosure () -> String) { write(.debug, message) }
    public static func info(_ message: @autoclosure () -> String) { write(.info, message) }
    public static func warning(_ message: @autoclosure () -> String) { write(.warning, message) }
    public static func error(_ message: @autoclosure () -> String) { write(.error, message) }

    private static func write(_ level: Level, _ message: () -> String) {
        guard level.rawValue >= threshold.load(ordering: .relaxed) else { return }
        let stamp = String(format: "%.3f", Date().timeIntervalSince1970)
        let line = "\(stamp) \(level) \(message())\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
