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

    public init(parsing text: String) throws(URLError) {
        let utf8 = Array(text.utf8)
        guard !utf8.isEmpty else { throw .empty }
        for byte in utf8 where byte <= 0x20 || byte == 0x7F {
            throw .invalidCharacter
        }
        guard let sep = text.range(of: "://") else { throw .notAURL }
        let rawScheme = text[..<sep.lowerBound]
        guard let first = rawScheme.first, first.isLetter,
              rawScheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
        else { throw .notAURL }
        let scheme = rawScheme.lowercased()
        guard Self.allowedSchemes.contains(scheme) else { throw .schemeNotAllowed(scheme) }

        var rest = text[sep.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var pathAndQuery = String(rest[authorityEnd...])
        if pathAndQuery.isEmpty || pathAndQuery.first == "?" { pathAndQuery = "/" + pathAndQuery }

        var userInfo: String?
        if let at = authority.lastIndex(of: "@") {
            userInfo = String(authority[..<at])
            authority = authority[authority.index(after: at)...]
        }

        var hostPart = authority
        var portText: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidHost }
            hostPart = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw .invalidHost }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw .missingHost }

        var port: Int?
        if let portText, !portText.isEmpty {
            guard portText.allSatisfy(\.isASCII), let value = Int(portText), (1...65535).contains(value) else {
                throw .invalidPort(String(portText))
            }
            port = value
        }
        if port == Self.defaultPort(for: scheme) { port = nil }

        self.scheme = scheme
        self.host = hostPart.lowercased()
        self.port = port
        self.pathAndQuery = pathAndQuery
        self.userInfo = (userInfo?.isEmpty ?? true) ? nil : userInfo
    }

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
