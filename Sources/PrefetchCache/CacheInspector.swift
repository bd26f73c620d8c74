#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// `cache stat` and `cache verify`: what the cache holds, and whether it is intact.
public struct CacheInspector: Sendable {
    public let layout: CacheLayout

    public init(root: String) {
        layout = CacheLayout(root: root)
    }

    public struct Statistics: Sendable, Equatable {
        public var entries = 0
        public var bytes: Int64 = 0
        /// When the oldest and newest bodies were stored (Unix seconds).
        public var oldest: Double?
        public var newest: Double?
        public var temporaries = 0
    }

    /// Counts from file-system metadata alone (no file is read).
    public func statistics() -> Statistics {
        var s = Statistics()
        CacheScanner(layout: layout).scan { entries, temporaries in
            s.temporaries += temporaries.count
            for entry in entries where entry.metadataInode != nil {
                guard let body = entry.bodies.max(by: { $0.modified < $1.modified }) else { continue }
                s.entries += 1
                s.bytes += body.size
                s.oldest = min(s.oldest ?? body.modified, body.modified)
                s.newest = max(s.newest ?? body.modified, body.modified)
            }
        }
        return s
    }

    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: String, Sendable {
            /// Metadata whose body is missing, of the wrong size, or fails its SHA-256.
            case corrupt
            /// A body no metadata names, older than the orphan age.
            case orphaned
            /// A temp file older than the stale age: its writer died.
            case staleTemporary = "stale-temp"
        }

        public let kind: Kind
        public let path: String
        public let detail: String

        public var description: String { "\(kind.rawValue): \(path): \(detail)" }
    }

    public struct VerifyReport: Sendable, Equatable {
        public var checked = 0
        public var problems: [Problem] = []
        public var removed = 0
        public var corrupt: Int { problems.filter { $0.kind == .corrupt }.count }
    }

    /// Reads every body and checks it against its metadata's size and SHA-256.
    /// With `fix`, removes corrupt entries, orphaned bodies and stale temp files.
    public func verify(fix: Bool, staleAge: Double = 3600, orphanAge: Double = 600,
                       now: Double = Date().timeIntervalSince1970) -> VerifyReport {
        var report = VerifyReport()
        CacheScanner(layout: layout).scan { entries, temporaries in
            for temp in temporaries where now - temp.modified > staleAge {
                record(Problem(kind: .staleTemporary, path: temp.path, detail: "left by a writer that stopped \(Int(now - temp.modified)) s ago"),
                       remove: [temp.path], fix: fix, &report)
            }
            for entry in entries {
                let metaPath = entry.directory + "/" + entry.hash + CacheLayout.metadataSuffix
                var named: String?
                if entry.metadataInode != nil {
                    report.checked += 1
                    let (problem, body) = check(metaPath, entry)
                    named = body
                    if let problem {
                        record(problem, remove: [metaPath] + (body.map { [entry.directory + "/" + $0] } ?? []), fix: fix, &report)
                        named = nil
                    }
                }
                for body in entry.bodies where body.name != named && now - body.modified > orphanAge {
                    let path = entry.directory + "/" + body.name
                    record(Problem(kind: .orphaned, path: path, detail: "no metadata names this body"), remove: [path], fix: fix, &report)
                }
            }
        }
        return report
    }

    /// Returns the problem with one entry, if any, and the body file its metadata names.
    private func check(_ metaPath: String, _ entry: CacheScanner.Entry) -> (Problem?, String?) {
        guard let data = FileManager.default.contents(atPath: metaPath), let meta = try? CacheMetadata.decode(data) else {
            // A writer may have replaced or removed it since the scan.
            return (access(metaPath, F_OK) == 0 ? Problem(kind: .corrupt, path: metaPath, detail: "metadata is not valid JSON") : nil, nil)
        }
        let bodyPath = entry.directory + "/" + meta.body
        var st = stat()
        guard stat(bodyPath, &st) == 0 else {
            return (Problem(kind: .corrupt, path: metaPath, detail: "body \(meta.body) is missing"), nil)
        }
        if Int(st.st_size) != meta.size {
            return (Problem(kind: .corrupt, path: bodyPath, detail: "size \(st.st_size), metadata says \(meta.size)"), meta.body)
        }
        if let expected = meta.sha256 {
            guard let actual = SHA256.hex(fileAt: bodyPath) else {
                return (Problem(kind: .corrupt, path: bodyPath, detail: "body cannot be read"), meta.body)
            }
            if actual != expected {
                return (Problem(kind: .corrupt, path: bodyPath, detail: "SHA-256 \(actual.prefix(12))…, metadata says \(expected.prefix(12))…"), meta.body)
            }
        }
        return (nil, meta.body)
    }

    private func record(_ problem: Problem, remove paths: [String], fix: Bool, _ report: inout VerifyReport) {
        report.problems.append(problem)
        if fix {
            for path in paths { unlink(path) }
            report.removed += 1
        }
    }
}
