#if canImport(Glibc)
import Glibc
#endif
import CCrypto
import PrefetchCore

/// SHA-256 through OpenSSL's libcrypto (hardware-accelerated where the CPU allows).
public enum SHA256 {
    public static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let rc = out.withUnsafeMutableBufferPointer { prefetch_sha256(bytes.baseAddress, bytes.count, $0.baseAddress) }
        // EVP_Digest only fails on allocation failure inside OpenSSL.
        precondition(rc == 1, "EVP_Digest(SHA-256) failed")
        return out
    }

    public static func hex(_ string: String) -> String {
        var s = string
        return s.withUTF8 { Hex.encode(digest(UnsafeRawBufferPointer($0))) }
    }

    public static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        Hex.encode(digest(bytes))
    }

    /// Hashes a file in 1 MiB chunks; `nil` if it cannot be read.
    public static func hex(fileAt path: String) -> String? {
        guard let hasher = SHA256Stream() else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue } else { return nil } }
            if n == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        return hasher.finishHex()
    }
}

/// Incremental SHA-256, for bodies hashed as they stream in. Single-owner.
public final class SHA256Stream {
    private var context: OpaquePointer?

    public init?() {
        guard let ctx = prefetch_sha256_begin() else { return nil }
        context = ctx
    }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let context, bytes.count > 0 else { return }
        _ = prefetch_sha256_update(context, bytes.baseAddress, bytes.count)
    }

    /// The digest in hex; the stream cannot be used afterwards.
    public func finishHex() -> String? {
        guard let ctx = context else { return nil }
        context = nil
        var out = [UInt8](repeating: 0, count: 32)
        let rc = out.withUnsafeMutableBufferPointer { prefetch_sha256_finish(ctx, $0.baseAddress) }
        return rc == 1 ? Hex.encode(out) : nil
    }

    deinit {
        if let context { prefetch_sha256_abort(context) }
    }
}
