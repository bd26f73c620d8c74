/// Lower-case hexadecimal, for digests.
public enum Hex {
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            var i = 0
            for b in bytes {
                out[i] = digit(b >> 4)
                out[i + 1] = digit(b & 0x0F)
                i += 2
            }
            return i
        }
    }

    @inline(__always)
    private static func digit(_ n: UInt8) -> UInt8 {
        n < 10 ? UInt8(ascii: "0") + n : UInt8(ascii: "a") + n - 10
    }
}
