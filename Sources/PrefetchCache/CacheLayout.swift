/// Where an entry lives on disk. Documented in docs/protocol.md ("Cache layout"):
///
///     <root>/v1/<h0h1>/<h2h3>/<h>          the body, byte for byte as served
///     <root>/v1/<h0h1>/<h2h3>/<h>.meta     JSON metadata (URL, size, type, validators)
///     <root>/v1/<h0h1>/<h2h3>/.<h>.*.tmp   a write in progress (hidden; never read)
///
/// where `h` is the lower-case hex SHA-256 of the cache key. Two levels of 256 shards
/// keep directories small for millions of entries.
public struct CacheLayout: Sendable, Equatable {
    public static let version = "v1"
    public static let metadataSuffix = ".meta"

    public let root: String

    public init(root: String) {
        self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
    }

    public struct EntryPaths: Sendable, Equatable {
        public let hash: String
        public let directory: String
        public let body: String
        public let metadata: String
    }

    public func paths(forKey key: String) -> EntryPaths {
        paths(forHash: SHA256.hex(key))
    }

    public func paths(forHash hash: String) -> EntryPaths {
        let dir = root + "/" + Self.version + "/" + hash.prefix(2) + "/" + hash.dropFirst(2).prefix(2)
        let body = dir + "/" + hash
        return EntryPaths(hash: hash, directory: dir, body: body, metadata: body + Self.metadataSuffix)
    }

    /// A hidden name in the entry's own directory, so the final rename stays on one file system.
    public func temporaryPath(for entry: EntryPaths, tag: String) -> String {
        entry.directory + "/." + entry.hash + "." + tag + ".tmp"
    }
}
