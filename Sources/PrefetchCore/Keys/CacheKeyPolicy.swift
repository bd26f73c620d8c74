/// How a job's cache key is derived: the job's own `key` if it has one, else its
/// normalized URL with chosen query parameters removed (signatures, cache busters), like
/// SDWebImage's cache key filter. Workers and readers sharing a cache must use the same policy.
public struct CacheKeyPolicy: Sendable, Equatable {
    /// Query parameter names dropped from keys (exact, case-sensitive). Default: none.
    public var ignoredQueryParameters: Set<String>

    public init(ignoredQueryParameters: Set<String> = []) {
        self.ignoredQueryParameters = ignoredQueryParameters
    }

    /// The key a thumbnail of the entry `key` is stored under: `<key>#thumbnail=<side>`.
    /// (A fragment never occurs in a normalized URL, so it cannot clash with an original.)
    public static func thumbnailKey(forKey key: String, longestSide: Int) -> String {
        key + "#thumbnail=" + String(longestSide)
    }

    public func key(for job: Job) -> String {
        job.customKey ?? key(for: job.url)
    }

    public func key(for url: NormalizedURL) -> String {
        guard !ignoredQueryParameters.isEmpty, let q = url.pathAndQuery.firstIndex(of: "?") else { return url.string }
        let path = url.pathAndQuery[..<q]
        let kept = url.pathAndQuery[url.pathAndQuery.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).filter { pair in
            let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            return !ignoredQueryParameters.contains(name)
        }
        var base = url.scheme + "://" + url.host
        if let port = url.port { base += ":" + String(port) }
        return base + path + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }
}
