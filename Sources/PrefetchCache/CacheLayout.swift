/// Where an entry lives on disk. Documented in docs/protocol.md ("Cache layout"):
///
///     <root>/v1/<h0h1>/<h2h3>/<h>.meta            JSON metadata; names the current body
///     <root>/v1/<h0h1>/<h2h3>/<h>.<version>.body  a body, never modified once in place
///     <root>/v1/<h0h1>/<h2h3>/.<h>.<tag>.tmp      a write in progress (hidden; never read)
///
/// where `h` is the lower-case hex SHA-256 of the cache key. Each stored body gets a new
/// version name and the metadata is switched to it with one `rename(2)`, so metadata and
/// body always belong together. Two levels of 256 shards keep directories small.
public struct CacheLayout: Sendable, Equatable {
    public static let version = "v1"
    public static let metadataSuffix = ".meta"
    public static let bodySuffix = ".body"
    public static let temporarySuffix = ".tmp"

    public let root: String

    public init(root: String) {
        self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
    }

    /// The directory holding all shards.
    public var dataDirectory: String { root + "/" + Self.version }

    public struct EntryPaths: Sendable, Equatable {
        public let hash: String
        public let directory: String
        public let metadata: String

        /// The path of one body version of this entry.
        public func body(version: String) -> String {
            directory + "/" + hash + "." + version + CacheLayout.bodySuffix
        }
    }

    public func paths(forKey key: String) -> EntryPaths {
        paths(forHash: SHA256.hex(key))
    }

    public func paths(forHash hash: String) -> EntryPaths {
        let dir = dataDirectory + "/" + hash.prefix(2) + "/" + hash.dropFirst(2).prefix(2)
        return EntryPaths(hash: hash, directory: dir, metadata: dir + "/" + hash + Self.metadataSuffix)
    }

    /// A hidden name in the entry's own directory, so the final rename stays on one file system.
    public func temporaryPath(for entry: EntryPaths, tag: String) -> String {
        entry.directory + "/." + entry.hash + "." + tag + Self.temporarySuffix
    }

    /// What a file name in a shard directory is.
    public enum FileKind: Equatable, Sendable {
        case metadata(hash: String)
        case body(hash: String, version: String)
        case temporary
        case other
    }

    public static func kind(ofFileNamed name: String) -> FileKind {
        if name.hasPrefix(".") { return name.hasSuffix(temporarySuffix) ? .temporary : .other }
        if name.hasSuffix(metadataSuffix) {
            let hash = String(name.dropLast(metadataSuffix.count))
            return hash.count == 64 ? .metadata(hash: hash) : .other
        }
        if name.hasSuffix(bodySuffix) {
            let stem = name.dropLast(bodySuffix.count)
            guard let dot = stem.firstIndex(of: "."), stem.distance(from: stem.startIndex, to: dot) == 64 else { return .other }
            return .body(hash: String(stem[..<dot]), version: String(stem[stem.index(after: dot)...]))
        }
        return .other
    }
}
