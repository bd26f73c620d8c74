#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Keeps the cache within its limits while workers run: removes entries older than the
/// maximum age, then least-recently-used entries until the total is below a low-water mark,
/// plus temp files left by killed writers and bodies no metadata names any more.
public struct CacheSweeper: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Largest total size of bodies in bytes; 0 means no limit. Default: 0.
        public var maxBytes: Int64 = 0
        /// Entries stored longer ago than this many seconds are removed; 0 means never. Default: 0.
        public var maxAge: Double = 0
        /// Eviction goes down to this fraction of `maxBytes`, so it does not run again at once. Default: 0.9.
        public var lowWater = 0.9
        /// Temp files older than this many seconds belong to dead writers. Default: 3600.
        public var staleTemporaryAge: Double = 3600
        /// Bodies no metadata names, older than this, are removed. Default: 600.
        public var orphanAge: Double = 600

        public init(maxBytes: Int64 = 0, maxAge: Double = 0) {
            self.maxBytes = maxBytes
            self.maxAge = maxAge
        }
    }

    public struct Report: Sendable, Equatable, CustomStringConvertible {
        public var entries = 0
        public var bytes: Int64 = 0
        public var removedEntries = 0
        public var removedBytes: Int64 = 0
        public var removedTemporaries = 0
        public var removedOrphans = 0

        public var description: String {
            "kept \(entries) entries (\(bytes) bytes); removed \(removedEntries) entries (\(removedBytes) bytes), "
                + "\(removedTemporaries) stale temp files, \(removedOrphans) orphaned bodies"
        }
    }

    public let layout: CacheLayout
    public let limits: Limits

    public init(root: String, limits: Limits) {
        layout = CacheLayout(root: root)
        self.limits = limits
    }

    private struct Candidate {
        let metadataPath: String
        let bodyPath: String
        let inode: UInt64
        let lastUsed: Double
        let size: Int64
    }

    public func sweep(now: Double = Date().timeIntervalSince1970) -> Report {
        var report = Report()
        var kept: [Candidate] = []
        CacheScanner(layout: layout).scan { entries, temporaries in
            for temp in temporaries where now - temp.modified > limits.staleTemporaryAge {
                if unlink(temp.path) == 0 { report.removedTemporaries += 1 }
            }
            for entry in entries {
                let current = currentBody(of: entry)
                for body in entry.bodies where body.name != current?.name && now - body.modified > limits.orphanAge {
                    if unlink(entry.directory + "/" + body.name) == 0 { report.removedOrphans += 1 }
                }
                guard let inode = entry.metadataInode, let body = current else { continue }
                let candidate = Candidate(metadataPath: entry.directory + "/" + entry.hash + CacheLayout.metadataSuffix,
                                          bodyPath: entry.directory + "/" + body.name, inode: inode,
                                          lastUsed: entry.lastUsed, size: body.size)
                if limits.maxAge > 0, now - body.modified > limits.maxAge {
                    remove(candidate, &report)
                } else {
                    kept.append(candidate)
                }
            }
        }
        var total = kept.reduce(Int64(0)) { $0 + $1.size }
        if limits.maxBytes > 0, total > limits.maxBytes {
            let target = Int64(Double(limits.maxBytes) * limits.lowWater)
            kept.sort { $0.lastUsed < $1.lastUsed }
            var index = 0
            while total > target, index < kept.count {
                if remove(kept[index], &report) { total -= kept[index].size }
                index += 1
            }
            kept.removeFirst(index)
        }
        report.entries = kept.count
        report.bytes = kept.reduce(Int64(0)) { $0 + $1.size }
        return report
    }

    /// The body the metadata names. With one body that is it; with several (a writer is
    /// replacing the entry, or an old version awaits cleanup) read the metadata to know.
    private func currentBody(of entry: CacheScanner.Entry) -> CacheScanner.Body? {
        guard entry.metadataInode != nil else { return nil }
        if entry.bodies.count == 1 { return entry.bodies[0] }
        guard let meta = CacheReader.readMetadata(entry.directory + "/" + entry.hash + CacheLayout.metadataSuffix) else { return nil }
        return entry.bodies.first { $0.name == meta.body }
    }

    /// Removes an entry unless a writer replaced its metadata since the scan (then the
    /// entry is fresh and stays).
    @discardableResult
    private func remove(_ c: Candidate, _ report: inout Report) -> Bool {
        guard CacheScanner.inode(c.metadataPath) == c.inode else { return false }
        unlink(c.metadataPath)
        unlink(c.bodyPath)
        report.removedEntries += 1
        report.removedBytes += c.size
        return true
    }
}
