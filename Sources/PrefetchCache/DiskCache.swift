#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// The shared disk cache. Any number of processes may use one directory at once:
/// every file reaches its final name only through `rename(2)` of a complete hidden
/// temp file, so a reader sees an old entry or a new one, never a partial one.
public final class DiskCache: Sendable {
    public let layout: CacheLayout

    public init(root: String) throws(CacheError) {
        layout = CacheLayout(root: root)
        try Self.makeDirectories(layout.root + "/" + CacheLayout.version)
    }

    public struct Entry: Sendable, Equatable {
        public let paths: CacheLayout.EntryPaths
        public let metadata: CacheMetadata
    }

    /// The entry for `key`, or `nil` when it is absent or incomplete.
    /// Metadata is committed after the body, so its presence means the body is whole.
    public func lookup(key: String) -> Entry? {
        let paths = layout.paths(forKey: key)
        guard let data = FileManager.default.contents(atPath: paths.metadata),
              let metadata = try? CacheMetadata.decode(data),
              access(paths.body, F_OK) == 0
        else { return nil }
        return Entry(paths: paths, metadata: metadata)
    }

    /// An open, empty, hidden file in the entry's directory for a body being downloaded.
    public struct TemporaryFile: Sendable {
        public let fd: Int32
        public let path: String
        public let entry: CacheLayout.EntryPaths
    }

    public func createTemporaryFile(forKey key: String) throws(CacheError) -> TemporaryFile {
        let entry = layout.paths(forKey: key)
        let path = layout.temporaryPath(for: entry, tag: Self.uniqueTag())
        var fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        if fd < 0 && errno == ENOENT {
            try Self.makeDirectories(entry.directory)
            fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        }
        try CacheError.check(fd, "open", path)
        return TemporaryFile(fd: fd, path: path, entry: entry)
    }

    /// Moves a complete body into place, then its metadata. The temp file must be closed.
    public func commit(temporaryPath: String, entry: CacheLayout.EntryPaths, metadata: CacheMetadata) throws(CacheError) {
        try CacheError.check(rename(temporaryPath, entry.body), "rename", entry.body)
        try writeAtomically(metadata.jsonString(), to: entry.metadata, entry: entry)
    }

    /// Removes a temp file whose download failed; a missing file is not an error.
    public func discard(temporaryPath: String) {
        unlink(temporaryPath)
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
