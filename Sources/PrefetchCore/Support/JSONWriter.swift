/// Builds a flat JSON object by appending fields, straight into UTF-8 bytes. Every job
/// produces an event and a metadata record, so this is on the hot path: strings that need
/// no escaping (nearly all) are copied in one go.
public struct JSONWriter: Sendable {
    private var bytes: [UInt8]
    private var empty = true

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    public mutating func field(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        Self.appendQuoted(value, to: &bytes)
    }

    public mutating func field(_ name: String, _ value: Int?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func field(_ name: String, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func field(_ name: String, _ value: Double?) {
        guard let value, value.isFinite else { return }
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Inserts already-encoded JSON (an array or object) as a field's value.
    public mutating func rawField(_ name: String, _ json: String) {
        key(name)
        bytes.append(contentsOf: json.utf8)
    }

    public func finish() -> String {
        var out = bytes
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func key(_ name: String) {
        if !empty { bytes.append(UInt8(ascii: ",")) }
        empty = false
        Self.appendQuoted(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            // Fast path: nothing to escape (no quote, backslash or control byte).
            if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                out.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                case 0..<0x20:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                            hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                default: out.append(byte)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
