#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PrefetchCore

/// One cache entry: where its files are and what its metadata says.
public struct CacheEntry: Sendable, Equatable {
    public let paths: CacheLayout.EntryPaths
    public let metadata: CacheMetadata

    /// The body file: immutable, complete, and the one this metadata describes.
    public var bodyPath: String { paths.directory + "/" + metadata.body }
}

/// Looks entries up without knowing the layout: the API other Swift programs link
/// (`PrefetchCache`), the way apps use SDImageCache. Safe against concurrent writers:
/// a body never changes once in place, and a replaced one is retried, not half-read.
public struct CacheReader: Sendable {
    public let layout: CacheLayout
    /// Must match the workers' (`--ignore-query-param`) for URL lookups to find their entries.
    public let keyPolicy: CacheKeyPolicy

    public init(root: String, keyPolicy: CacheKeyPolicy = CacheKeyPolicy()) {
        layout = CacheLayout(root: root)
        self.keyPolicy = keyPolicy
    }

    /// The cache key workers use for `url` (a job without a custom `key`).
    public func key(forURL url: String) throws -> String {
        keyPolicy.key(for: try NormalizedURL(parsing: url))
    }

    public func entry(forURL url: String) throws -> CacheEntry? {
        entry(forKey: try key(forURL: url))
    }

    /// A thumbnail of the entry `key` with the given longest side, if one was prepared.
    public func thumbnail(forKey key: String, longestSide: Int) -> CacheEntry? {
        entry(forKey: CacheKeyPolicy.thumbnailKey(forKey: key, longestSide: longestSide))
    }

    /// The entry for `key`, or `nil` when there is none (or it is being removed).
    public func entry(forKey key: String) -> CacheEntry? {
        entry(forHash: SHA256.hex(key))
    }

    /// The entry whose key hashes to `hash` (lower-case hex SHA-256).
    public func entry(forHash hash: String) -> CacheEntry? {
        let paths = layout.paths(forHash: hash)
        // Two tries: the body named by the metadata may have just been replaced.
        for _ in 0..<2 {
            guard let metadata = Self.readMetadata(paths.metadata) else { return nil }
            let entry = CacheEntry(paths: paths, metadata: metadata)
            if access(entry.bodyPath, F_OK) == 0 { return entry }
        }
        return nil
    }

    /// The body and the metadata that describes it, read consistently.
    public func read(key: String) -> (entry: CacheEntry, body: Data)? {
        for _ in 0..<3 {
            guard let entry = entry(forKey: key) else { return nil }
            // Once open, the file stays readable even if a writer replaces the entry.
            if let body = FileManager.default.contents(atPath: entry.bodyPath) { return (entry, body) }
        }
        return nil
    }

    static func readMetadata(_ path: String) -> CacheMetadata? {
        guard let data = FileRead.contents(path) else { return nil }
        return try? CacheMetadata.decode(data)
    }
}
