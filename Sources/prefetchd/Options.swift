import Foundation

/// Command-line options: `--name value` or `--name=value`, each falling back to an
/// environment variable, then to a default. Unknown options are errors, not ignored.
struct Options {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []
    private(set) var positional: [String] = []
    let environment: [String: String]

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// - Parameters:
    ///   - valued: options that take a value (without the leading `--`).
    ///   - switches: options that take none.
    init(_ args: [String], valued: Set<String>, switches: Set<String> = [], environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        self.environment = environment
        var i = 0
        while i < args.count {
            let arg = args[i]
            i += 1
            guard arg.hasPrefix("--"), arg.count > 2 else {
                positional.append(arg)
                continue
            }
            var name = String(arg.dropFirst(2))
            var value: String?
            if let eq = name.firstIndex(of: "=") {
                value = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if switches.contains(name) {
                flags.insert(name)
            } else if valued.contains(name) {
                if value == nil {
                    guard i < args.count else { throw UsageError(description: "--\(name) needs a value") }
                    value = args[i]
                    i += 1
                }
                values[name] = value
            } else {
                throw UsageError(description: "unknown option --\(name)")
            }
        }
    }

    func string(_ name: String, env: String? = nil, default fallback: String? = nil) -> String? {
        values[name] ?? env.flatMap { environment[$0] }.flatMap { $0.isEmpty ? nil : $0 } ?? fallback
    }

    func int(_ name: String, env: String? = nil, default fallback: Int) throws -> Int {
        guard let text = string(name, env: env) else { return fallback }
        guard let v = Int(text), v >= 0 else { throw UsageError(description: "--\(name) must be a whole number ≥ 0, got '\(text)'") }
        return v
    }

    func seconds(_ name: String, env: String? = nil, default fallback: Double) throws -> Double {
        guard let text = string(name, env: env) else { return fallback }
        guard let v = Double(text), v >= 0, v.isFinite else { throw UsageError(description: "--\(name) must be a number of seconds, got '\(text)'") }
        return v
    }

    /// Sizes accept K, M and G suffixes (powers of 1024).
    func bytes(_ name: String, env: String? = nil, default fallback: Int) throws -> Int {
        guard let text = string(name, env: env) else { return fallback }
        let multipliers: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(text)
        var multiplier = 1
        if let last = digits.last?.uppercased().first, let m = multipliers[last] {
            multiplier = m
            digits = digits.dropLast()
        }
        guard let v = Int(digits), v >= 0 else { throw UsageError(description: "--\(name) must be a size like 500M, got '\(text)'") }
        return v * multiplier
    }

    /// Counts accept K and M suffixes (powers of 1000).
    func count(_ name: String, env: String? = nil, default fallback: Int) throws -> Int {
        guard let text = string(name, env: env) else { return fallback }
        let multipliers: [Character: Int] = ["K": 1000, "M": 1_000_000]
        var digits = Substring(text)
        var multiplier = 1
        if let last = digits.last?.uppercased().first, let m = multipliers[last] {
            multiplier = m
            digits = digits.dropLast()
        }
        guard let v = Int(digits), v > 0 else { throw UsageError(description: "--\(name) must be a count like 50M, got '\(text)'") }
        return v * multiplier
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
}
