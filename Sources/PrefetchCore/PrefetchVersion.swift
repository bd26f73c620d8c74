/// The version reported in the User-Agent and by `prefetchd version`.
public enum PrefetchVersion {
    public static let string = "0.1.0"
}
