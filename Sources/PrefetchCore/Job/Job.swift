/// One unit of work taken from the queue: a URL to have in the cache, plus options.
public struct Job: Sendable, Equatable {
    /// The job exactly as it was taken from Redis; acknowledgements remove this string.
    public let raw: String
    public let url: NormalizedURL
    /// Optional caller-chosen identifier, echoed in every event for this job.
    public let id: String?
    /// A caller-chosen cache key; when absent the key is the normalized URL.
    public let customKey: String?
    public let priority: Priority
    /// Fetch even when the URL is in the failed set.
    public let retryFailed: Bool
    /// Revalidate or refetch even when the URL is cached.
    public let refresh: Bool

    public init(
        raw: String, url: NormalizedURL, id: String? = nil, customKey: String? = nil,
        priority: Priority = .normal, retryFailed: Bool = false, refresh: Bool = false
    ) {
        self.raw = raw
        self.url = url
        self.id = id
        self.customKey = customKey
        self.priority = priority
        self.retryFailed = retryFailed
        self.refresh = refresh
    }

    /// The key the cache stores this job's body under.
    public var cacheKey: String { customKey ?? url.string }

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
