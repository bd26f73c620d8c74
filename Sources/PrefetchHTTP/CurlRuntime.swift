import CCurl

/// `curl_global_init` is not thread-safe: the command line calls this first, before
/// any thread starts; the downloader calls it again as a safety net (it runs once).
public enum CurlRuntime {
    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
    }()

    @discardableResult
    public static func initializeOnce() -> Bool { initialized }

    /// The libcurl version string, for `prefetchd version`.
    public static var version: String { String(cString: curl_version()) }
}
