/// Builds a flat JSON object by appending fields; cheaper than Codable on the hot path,
/// where every job produces one event.
public struct JSONWriter: Sendable {
    private var buffer = "{"
    private var empty = true

    public init() {}

    public mutating func field(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        Self.appendQuoted(value, to: &buffer)
    }

    public mutating func field(_ name: String, _ value: Int?) {
        guard let value else { return }
        key(name)
        buffer += String(value)
    }

    public mutating func field(_ name: String, _ value: Bool?) {
        guard let value else { return }
        key(name)
        buffer += value ? "true" : "false"
    }

    public mutating func field(_ name: String, _ value: Double?) {
        guard let value, value.isFinite else { return }
        key(name)
        buffer += String(value)
    }

    /// Inserts already-encoded JSON (an array or object) as a field's value.
    public mutating func rawField(_ name: String, _ json: String) {
        key(name)
        buffer += json
    }

    public func finish() -> String { buffer + "}" }

    private mutating func key(_ name: String) {
        if !empty { buffer += "," }
        empty = false
        Self.appendQuoted(name, to: &buffer)
        buffer += ":"
    }

    public static func quoted(_ s: String) -> String {
        var out = ""
        appendQuoted(s, to: &out)
        return out
    }

    static func appendQuoted(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
