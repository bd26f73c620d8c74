#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Small-file reads with plain syscalls: a missing file costs one `open`, and nothing goes
/// through Foundation's general machinery (metadata files are read on every job).
public enum FileRead {
    /// The whole file, or `nil` if it cannot be opened or read. For files of a few KB.
    public static func contents(_ path: String, limit: Int = 1 << 20) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var data = Data()
        while data.count < limit {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue } else { return nil } }
            if n == 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        return data
    }

    /// The last path component, without Foundation's NSString bridging.
    public static func lastComponent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
