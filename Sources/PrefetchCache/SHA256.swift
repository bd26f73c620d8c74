import CCrypto

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
        return s.withUTF8 { hex(digest(UnsafeRawBufferPointer($0))) }
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
