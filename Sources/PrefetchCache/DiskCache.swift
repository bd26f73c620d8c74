#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PrefetchCore
import Synchronization

/// The writing side of the shared disk cache. Any number of processes, on one host or on
/// several sharing a file system, may use one directory at once with no lock: every file
/// reaches its final name only through `rename(2)` of a complete hidden temp file, and each
/// body gets a fresh name that the metadata then points to, so a reader sees a whole old
/// entry or a whole new one.
public final class DiskCache: Sendable {
    public let layout: CacheLayout
    public let reader: CacheReader

    public init(root: String, reader: CacheReader? = nil) throws(CacheError) {
        layout = CacheLayout(root: root)
        self.reader = reader ?? CacheReader(root: root)
        try Self.makeDirectories(layout.dataDirectory)
    }

    public func lookup(key: String) -> CacheEntry? {
        reader.entry(forKey: key)
    }

    public func lookup(hash: String) -> CacheEntry? {
        reader.entry(forHash: hash)
    }

    /// Marks an entry used now (the metadata's mtime), so eviction removes the least
    /// recently used entries first. Best effort.
    public func touch(_ entry: CacheEntry) {
        utimensat(AT_FDCWD, entry.paths.metadata, nil, 0)
    }

    /// An open, empty, hidden file in the entry's directory for a body being downloaded.
    public struct TemporaryFile: Sendable {
        public let fd: Int32
        public let path: String
        public let entry: CacheLayout.EntryPaths
    }

    public func createTemporaryFile(forKey key: String) throws(CacheError) -> TemporaryFile {
        try createTemporaryFile(forHash: SHA256.hex(key))
    }

    public func createTemporaryFile(forHash hash: String) throws(CacheError) -> TemporaryFile {
        let entry = layout.paths(forHash: hash)
        let path = layout.temporaryPath(for: entry, tag: Self.uniqueTag())
        var fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        if fd < 0 && errno == ENOENT {
            try Self.makeDirectories(entry.directory)
            fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        }
        try CacheError.check(fd, "open", path)
        return TemporaryFile(fd: fd, path: path, entry: entry)
    }

    /// Puts a complete body (a closed temp file) in place under a new version name, then
    /// switches the metadata to it, then removes the body it replaced.
    @discardableResult
    public func commit(temporaryPath: String, key: String, metadata: CacheMetadata) throws(CacheError) -> CacheEntry {
        try commit(temporaryPath: temporaryPath, hash: SHA256.hex(key), metadata: metadata)
    }

    /// `commit` for a key whose hash the caller already has.
    @discardableResult
    public func commit(temporaryPath: String, hash: String, metadata: CacheMetadata) throws(CacheError) -> CacheEntry {
        let paths = layout.paths(forHash: hash)
        let version = Self.newVersion()
        var metadata = metadata
        metadata.body = FileRead.lastComponent(paths.body(version: version))
        let bodyPath = paths.body(version: version)
        try CacheError.check(rename(temporaryPath, bodyPath), "rename", bodyPath)
        let previous = CacheReader.readMetadata(paths.metadata)
        do {
            try writeAtomically(metadata.jsonString(), to: paths.metadata, entry: paths)
        } catch {
            unlink(bodyPath)
            throw error
        }
        // Only the body the metadata we replaced named: never a newer writer's body.
        if let previous, !previous.body.isEmpty, previous.body != metadata.body {
            unlink(paths.directory + "/" + previous.body)
        }
        return CacheEntry(paths: paths, metadata: metadata)
    }

    /// Rewrites an entry's metadata, keeping its body (after a 304 Not Modified).
    /// Fails if the entry changed since `entry` was read, leaving the newer one alone.
    @discardableResult
    public func updateMetadata(of entry: CacheEntry, to metadata: CacheMetadata) throws(CacheError) -> CacheEntry {
        var metadata = metadata
        metadata.body = entry.metadata.body
        // Re-read just before replacing: if a writer committed another body meanwhile,
        // leave its entry alone rather than stamp it with the old body's validators.
        guard CacheReader.readMetadata(entry.paths.metadata)?.body == entry.metadata.body,
              access(entry.bodyPath, F_OK) == 0 else {
            throw CacheError(operation: "revalidate", path: entry.paths.metadata, code: ESTALE)
        }
        try writeAtomically(metadata.jsonString(), to: entry.paths.metadata, entry: entry.paths)
        return CacheEntry(paths: entry.paths, metadata: metadata)
    }

    /// Removes a temp file whose download failed; a missing file is not an error.
    public func discard(temporaryPath: String) {
        unlink(temporaryPath)
    }

    /// Removes an entry: metadata first (it disappears for readers), then its body.
    public func remove(_ entry: CacheEntry) {
        unlink(entry.paths.metadata)
        unlink(entry.bodyPath)
    }

    private func writeAtomically(_ text: String, to finalPath: String, entry: CacheLayout.EntryPaths) throws(CacheError) {
        let temp = layout.temporaryPath(for: entry, tag: Self.uniqueTag())
        let fd = open(temp, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        try CacheError.check(fd, "open", temp)
        var bytes = Array(text.utf8)
        let written = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
        let writeErrno = errno
        close(fd)
        if written != bytes.count {
            unlink(temp)
            throw CacheError(operation: "write", path: temp, code: written < 0 ? writeErrno : EIO)
        }
        if rename(temp, finalPath) < 0 {
            let code = errno
            unlink(temp)
            throw CacheError(operation: "rename", path: finalPath, code: code)
        }
    }

    private static let counter = Atomic<UInt64>(0)

    /// Unique across processes and hosts sharing the directory: host, pid, counter.
    static func uniqueTag() -> String {
        let n = counter.add(1, ordering: .relaxed).newValue
        return hostTag + "-" + String(getpid()) + "-" + String(n)
    }

    /// A body version: 64 random bits, so writers on different hosts never collide.
    static func newVersion() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 16)
    }

    private static let hostTag: String = {
        var name = [UInt8](repeating: 0, count: 256)
        gethostname(&name, name.count - 1)
        let host = String(decoding: name.prefix(while: { $0 != 0 }), as: UTF8.self).filter { $0.isLetter || $0.isNumber || $0 == "-" }
        return host.isEmpty ? "host" : String(host.prefix(32))
    }()

    static func makeDirectories(_ path: String) throws(CacheError) {
        if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
        guard errno == ENOENT else { throw CacheError(operation: "mkdir", path: path, code: errno) }
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        guard !parent.isEmpty else { throw CacheError(operation: "mkdir", path: path, code: ENOENT) }
        try makeDirectories(parent)
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw CacheError(operation: "mkdir", path: path, code: errno)
        }
    }
}
