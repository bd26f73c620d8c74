#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Walks the shard directories once, with `readdir` and `fstatat` only (no file reads),
/// and groups what it finds by entry. Shared by sweeps, `cache stat` and `cache verify`.
struct CacheScanner {
    struct Body: Equatable {
        let name: String
        let version: String
        let size: Int64
        /// When it was written (bodies are never modified afterwards).
        let modified: Double
    }

    struct Entry {
        let hash: String
        let directory: String
        /// Present when the entry has metadata.
        var metadataInode: UInt64?
        /// Last use: writers and cache hits set the metadata's mtime.
        var lastUsed: Double = 0
        var bodies: [Body] = []
    }

    struct Temporary {
        let path: String
        let modified: Double
        let size: Int64
    }

    let layout: CacheLayout

    /// Calls `visit` once per shard directory with its entries and temp files.
    func scan(_ visit: (_ entries: [Entry], _ temporaries: [Temporary]) -> Void) {
        for first in Self.list(layout.dataDirectory) where first.count == 2 {
            let firstPath = layout.dataDirectory + "/" + first
            for second in Self.list(firstPath) where second.count == 2 {
                let dir = firstPath + "/" + second
                scanShard(dir, visit)
            }
        }
    }

    private func scanShard(_ dir: String, _ visit: ([Entry], [Temporary]) -> Void) {
        guard let handle = opendir(dir) else { return }
        defer { closedir(handle) }
        let fd = dirfd(handle)
        var entries: [String: Entry] = [:]
        var temporaries: [Temporary] = []
        while let item = readdir(handle) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name == "." || name == ".." { continue }
            var st = stat()
            guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
            switch CacheLayout.kind(ofFileNamed: name) {
            case .metadata(let hash):
                entries[hash, default: Entry(hash: hash, directory: dir)].metadataInode = UInt64(st.st_ino)
                entries[hash]!.lastUsed = modified
            case .body(let hash, let version):
                entries[hash, default: Entry(hash: hash, directory: dir)].bodies.append(
                    Body(name: name, version: version, size: Int64(st.st_size), modified: modified))
            case .temporary:
                temporaries.append(Temporary(path: dir + "/" + name, modified: modified, size: Int64(st.st_size)))
            case .other:
                break
            }
        }
        visit(Array(entries.values), temporaries)
    }

    static func list(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    /// The inode of a file now, to detect that a writer replaced it.
    static func inode(_ path: String) -> UInt64? {
        var st = stat()
        return stat(path, &st) == 0 ? UInt64(st.st_ino) : nil
    }
}
