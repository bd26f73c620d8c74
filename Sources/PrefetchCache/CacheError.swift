#if canImport(Glibc)
import Glibc
#endif

/// A failed file-system call in the cache, with the errno text.
public struct CacheError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let path: String
    public let code: Int32

    public init(operation: String, path: String, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(code)))"
    }

    /// The one place a failed syscall in the cache becomes a Swift error.
    static func check(_ result: Int32, _ operation: String, _ path: String) throws(CacheError) {
        if result < 0 { throw CacheError(operation: operation, path: path, code: errno) }
    }
}
