import Foundation
/// Where and how to connect: `redis://[[user]:password@]host[:port][/db]` or
/// `unix:///path/to/redis.sock[?db=N&password=P&user=U]`.
public struct RedisURL: Sendable, Equatable, CustomStringConvertible {
    public enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: Int)
        case unix(path: String)
    }

    public var endpoint: Endpoint
    public var database: Int
    public var user: String?
    public var password: String?

    public static let defaultString = "redis://127.0.0.1:6379"

    public init(endpoint: Endpoint, database: Int = 0, user: String? = nil, password: String? = nil) {
        self.endpoint = endpoint
        self.database = database
        self.user = user
        self.password = password
    }

    /// The URL with the password masked, for logs.
    public var description: String {
        let auth = password == nil ? "" : (user ?? "") + ":***@"
        switch endpoint {
        case .tcp(let host, let port):
            let h = host.contains(":") ? "[" + host + "]" : host
            return "redis://\(auth)\(h):\(port)/\(database)"
        case .unix(let path):
            return "unix://\(path)?db=\(database)" + (password == nil ? "" : "&password=***")
        }
    }

    public init(parsing text: String) throws(RedisError) {
        if text.hasPrefix("unix://") {
            try self.init(unix: text.dropFirst("unix://".count))
        } else if text.hasPrefix("redis://") {
            try self.init(tcp: text.dropFirst("redis://".count))
        } else {
            throw .invalidURL("expected redis://host:port/db or unix:///path, got '\(text)'")
        }
    }

    private init(tcp rest: Substring) throws(RedisError) {
        var rest = rest
        var user: String?, password: String?
        if let at = rest.lastIndex(of: "@") {
            let auth = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = auth.firstIndex(of: ":") {
                user = Self.decode(auth[..<colon])
                password = Self.decode(auth[auth.index(after: colon)...])
            } else {
                // redis://secret@host: a bare userinfo is the password, as redis-cli reads it.
                password = Self.decode(auth)
            }
            if user?.isEmpty == true { user = nil }
        }
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let db = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
            if !db.isEmpty {
                guard let n = Int(db), n >= 0 else { throw .invalidURL("database must be a number, got '\(db)'") }
                database = n
            }
        }
        var host = "127.0.0.1", port = 6379
        var hostPart = rest
        if rest.first == "[", let close = rest.firstIndex(of: "]") {
            hostPart = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.first == ":" { port = try Self.port(after.dropFirst()) }
        } else if let colon = rest.lastIndex(of: ":") {
            hostPart = rest[..<colon]
            port = try Self.port(rest[rest.index(after: colon)...])
        }
        if !hostPart.isEmpty { host = String(hostPart) }
        self.init(endpoint: .tcp(host: host, port: port), database: database, user: user, password: password)
    }

    private init(unix rest: Substring) throws(RedisError) {
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = String(parts[0])
        guard path.hasPrefix("/") else { throw .invalidURL("unix socket path must be absolute") }
        var database = 0
        var user: String?, password: String?
        if parts.count > 1 {
            for pair in parts[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard kv.count == 2 else { continue }
                switch kv[0] {
                case "db":
                    guard let n = Int(kv[1]), n >= 0 else { throw .invalidURL("db must be a number") }
                    database = n
                case "password": password = Self.decode(Substring(kv[1]))
                case "user": user = Self.decode(Substring(kv[1]))
                default: throw .invalidURL("unknown parameter '\(kv[0])'")
                }
            }
        }
        self.init(endpoint: .unix(path: path), database: database, user: user, password: password)
    }

    private static func port(_ text: Substring) throws(RedisError) -> Int {
        guard let p = Int(text), (1...65535).contains(p) else { throw .invalidURL("invalid port '\(text)'") }
        return p
    }

    /// Percent-decoded, as `Job.effectiveCredentials` decodes URL credentials; text that is
    /// not valid percent-encoding is kept as written.
    private static func decode(_ s: Substring) -> String {
        String(s).removingPercentEncoding ?? String(s)
    }
}

extension RedisURL {
    /// The URL in a form `RedisURL(parsing:)` accepts again, password included.
    public var urlString: String {
        let auth: String
        if let password {
            let encoded = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? password
            auth = (user ?? "") + ":" + encoded + "@"
        } else {
            auth = ""
        }
        switch endpoint {
        case .tcp(let host, let port):
            let h = host.contains(":") ? "[" + host + "]" : host
            return "redis://\(auth)\(h):\(port)/\(database)"
        case .unix(let path):
            var s = "unix://\(path)?db=\(database)"
            if let password { s += "&password=" + (password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? password) }
            if let user { s += "&user=" + user }
            return s
        }
    }
}
