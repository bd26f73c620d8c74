/// An http(s) URL in the canonical form prefetchd uses for cache keys, events and the
/// failed set: scheme and host lower-cased, default port and fragment dropped, empty
/// path written as `/`. Credentials (`user:pass@`) are kept apart so they can be sent
/// but never appear in a key, an event or a log line.
public struct NormalizedURL: Sendable, Hashable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    /// `nil` when the URL used its scheme's default port.
    public let port: Int?
    /// Path and query, always starting with `/`.
    public let pathAndQuery: String
    /// `user:password` as written in the URL, still percent-encoded.
    public let userInfo: String?

    /// The URL without credentials: what keys, events and the failed set use.
    public var string: String {
        var s = scheme + "://" + host
        if let port { s += ":" + String(port) }
        return s + pathAndQuery
    }

    /// The URL to request, credentials included.
    public var requestString: String {
        guard let userInfo else { return string }
        var s = scheme + "://" + userInfo + "@" + host
        if let port { s += ":" + String(port) }
        return s + pathAndQuery
    }

    public var description: String { string }

    public static let allowedSchemes: Set<String> = ["http", "https"]

    /// Parses on UTF-8 bytes (no grapheme breaking): this runs for every job taken and
    /// every URL enqueued.
    public init(parsing text: String) throws(URLError) {
        var text = text
        let parsed: Result<NormalizedURL, URLError> = text.withUTF8 { Self.parse($0) }
        self = try parsed.get()
    }

    private init(scheme: String, host: String, port: Int?, pathAndQuery: String, userInfo: String?) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.pathAndQuery = pathAndQuery
        self.userInfo = userInfo
    }

    private static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Result<NormalizedURL, URLError> {
        guard !b.isEmpty else { return .failure(.empty) }
        for byte in b where byte <= 0x20 || byte == 0x7F {
            return .failure(.invalidCharacter)
        }
        // scheme "://"
        guard let colon = b.firstIndex(of: UInt8(ascii: ":")), colon + 2 < b.count + 0,
              b[colon + 1] == UInt8(ascii: "/"), b[colon + 2] == UInt8(ascii: "/") else { return .failure(.notAURL) }
        let rawScheme = b[0..<colon]
        guard let first = rawScheme.first, isAlpha(first),
              rawScheme.allSatisfy({ isAlpha($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else { return .failure(.notAURL) }
        let scheme = String(decoding: rawScheme.map(lower), as: UTF8.self)
        guard allowedSchemes.contains(scheme) else { return .failure(.schemeNotAllowed(scheme)) }

        var end = b.count
        if let hash = b[(colon + 3)...].firstIndex(of: UInt8(ascii: "#")) { end = hash }
        let restStart = colon + 3
        let authorityEnd = b[restStart..<end].firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) ?? end
        var pathAndQuery = String(decoding: b[authorityEnd..<end], as: UTF8.self)
        if pathAndQuery.isEmpty || pathAndQuery.utf8.first == UInt8(ascii: "?") { pathAndQuery = "/" + pathAndQuery }

        var hostStart = restStart
        var userInfo: String?
        if let at = b[restStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) {
            userInfo = String(decoding: b[restStart..<at], as: UTF8.self)
            hostStart = at + 1
        }
        var hostEnd = authorityEnd
        var portRange: Range<Int>?
        if hostStart < authorityEnd, b[hostStart] == UInt8(ascii: "[") {
            guard let close = b[hostStart..<authorityEnd].firstIndex(of: UInt8(ascii: "]")) else { return .failure(.invalidHost) }
            hostEnd = close + 1
            if hostEnd < authorityEnd {
                guard b[hostEnd] == UInt8(ascii: ":") else { return .failure(.invalidHost) }
                portRange = (hostEnd + 1)..<authorityEnd
            }
        } else if let c = b[hostStart..<authorityEnd].lastIndex(of: UInt8(ascii: ":")) {
            hostEnd = c
            portRange = (c + 1)..<authorityEnd
        }
        guard hostStart < hostEnd else { return .failure(.missingHost) }

        var port: Int?
        if let r = portRange, !r.isEmpty {
            let digits = b[r]
            let text = String(decoding: digits, as: UTF8.self)
            guard digits.count <= 5, digits.allSatisfy(isDigit), let value = Int(text), (1...65535).contains(value) else {
                return .failure(.invalidPort(text))
            }
            port = value
        }
        if port == defaultPort(for: scheme) { port = nil }
        let host = String(decoding: b[hostStart..<hostEnd].map(lower), as: UTF8.self)
        return .success(NormalizedURL(scheme: scheme, host: host, port: port, pathAndQuery: pathAndQuery,
                                      userInfo: (userInfo?.isEmpty ?? true) ? nil : userInfo))
    }

    @inline(__always) private static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") }
    @inline(__always) private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
    /// ASCII lower case; other bytes (UTF-8 in a host) are kept as they are.
    @inline(__always) private static func lower(_ c: UInt8) -> UInt8 { c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") ? c | 0x20 : c }

    static func defaultPort(for scheme: String) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    /// Why a string is not an acceptable URL. The descriptions end up in dead-letter entries.
    public enum URLError: Error, Equatable, CustomStringConvertible, Sendable {
        case empty
        case notAURL
        case invalidCharacter
        case schemeNotAllowed(String)
        case missingHost
        case invalidHost
        case invalidPort(String)

        public var description: String {
            switch self {
            case .empty: "empty URL"
            case .notAURL: "not a URL (expected http:// or https://)"
            case .invalidCharacter: "URL contains whitespace or control characters"
            case .schemeNotAllowed(let s): "scheme '\(s)' is not allowed (only http and https)"
            case .missingHost: "URL has no host"
            case .invalidHost: "URL has a malformed host"
            case .invalidPort(let p): "URL has an invalid port '\(p)'"
            }
        }
    }
}
