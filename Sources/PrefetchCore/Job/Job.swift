import Foundation

/// One unit of work taken from the queue: a URL to have in the cache, plus options.
public struct Job: Sendable, Equatable {
    /// The job exactly as it was taken from Redis; acknowledgements remove this string.
    public let raw: String
    public let url: NormalizedURL
    /// Optional caller-chosen identifier, echoed in every event for this job.
    public let id: String?
    /// A caller-chosen cache key; when absent the key is the normalized URL.
    public let customKey: String?
    /// Order inside a worker's backlog; `nil` means "that of the list it came from".
    public let priority: Priority?
    /// Extra request headers from the job (`"headers": {"Name": "value"}`). Never published.
    public let headers: [String: String]
    /// Basic-auth credentials from the job (`"auth": {"username", "password"}`). Never published.
    public let credentials: Credentials?
    /// Fetch even when the URL is in the failed set.
    public let retryFailed: Bool
    /// Revalidate or refetch even when the URL is cached.
    public let refresh: Bool
    /// 1 for a fresh job; retries are re-queued with the next attempt number.
    public let attempt: Int
    /// How many times the job was recovered from a worker that died holding it.
    public let recovered: Int
    /// Verification level for this job (`none`, `header`, `structure`, `full`); `nil` = the worker's.
    public let verification: String?
    /// Whether the body must be an image; `nil` = the worker's setting.
    public let expectImage: Bool?
    /// Longest sides of thumbnails to prepare, e.g. `[256, 1024]`; `nil` = the worker's.
    public let thumbnails: [Int]?
    /// Unix time after which the job is no longer wanted (`"expires_at"`). An expired job
    /// gets an `expired` outcome; a transfer other jobs share goes on for them.
    public let expiresAt: Double?

    public init(
        raw: String, url: NormalizedURL, id: String? = nil, customKey: String? = nil,
        priority: Priority? = nil, headers: [String: String] = [:], credentials: Credentials? = nil,
        retryFailed: Bool = false, refresh: Bool = false, attempt: Int = 1, recovered: Int = 0,
        verification: String? = nil, expectImage: Bool? = nil, thumbnails: [Int]? = nil, expiresAt: Double? = nil
    ) {
        self.raw = raw
        self.url = url
        self.id = id
        self.customKey = customKey
        self.priority = priority
        self.headers = headers
        self.credentials = credentials
        self.retryFailed = retryFailed
        self.refresh = refresh
        self.attempt = attempt
        self.recovered = recovered
        self.verification = verification
        self.expectImage = expectImage
        self.thumbnails = thumbnails
        self.expiresAt = expiresAt
    }

    public func isExpired(at now: Double) -> Bool {
        expiresAt.map { now >= $0 } ?? false
    }

    public static let verificationLevels: Set<String> = ["none", "header", "structure", "full"]
    /// Largest thumbnail side a job may ask for, and how many sizes.
    public static let maxThumbnailSide = 8192
    public static let maxThumbnails = 8

    /// The key the cache stores this job's body under.
    public var cacheKey: String { customKey ?? url.string }

    public struct Credentials: Sendable, Equatable {
        public let username: String
        public let password: String

        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }
    }

    /// The credentials to send: the job's `auth`, else those written in the URL.
    public var effectiveCredentials: Credentials? {
        if let credentials { return credentials }
        guard let info = url.userInfo else { return nil }
        let parts = info.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        return Credentials(username: String(parts[0]).removingPercentEncoding ?? String(parts[0]),
                           password: parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : "")
    }

    /// `host[:port]`: what per-host caps count by.
    public var hostKey: String { url.port.map { url.host + ":" + String($0) } ?? url.host }

    public enum Priority: Int, Sendable, Comparable, CaseIterable {
        case low = 0, normal = 1, high = 2

        public init?(name: String) {
            switch name.lowercased() {
            case "low": self = .low
            case "normal": self = .normal
            case "high": self = .high
            default: return nil
            }
        }

        public var name: String {
            switch self {
            case .low: "low"
            case .normal: "normal"
            case .high: "high"
            }
        }

        public static func < (a: Priority, b: Priority) -> Bool { a.rawValue < b.rawValue }
    }
}
