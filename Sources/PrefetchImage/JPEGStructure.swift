import CImageProbe
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Walks a JPEG's markers without decoding anything: SOI, then segments whose lengths must
/// fit, a frame header (SOFn) before the first scan, each scan's entropy-coded data up to the
/// next marker, and EOI at the end. A file cut short at any byte fails: the walk only
/// succeeds on reaching an EOI marker outside segments and scan data, and an EOI cannot
/// appear earlier (inside scan data 0xFF is always followed by 0x00 or a restart marker).
/// Bytes after EOI are ignored, as decoders do.
enum JPEGStructure {
    struct Summary: Equatable {
        var width: Int
        var height: Int
        var scans: Int
    }

    static func walk(_ b: UnsafeRawBufferPointer) throws(ImageError) -> Summary {
        let n = b.count
        guard n >= 2 else { throw truncated("the data ends inside the SOI marker") }
        guard b[0] == 0xFF, b[1] == 0xD8 else { throw corrupt("missing SOI marker") }
        var i = 2
        var frame: (width: Int, height: Int)?
        var scans = 0
        while true {
            guard i < n else { throw truncated("the data ends before the EOI marker") }
            guard b[i] == 0xFF else {
                throw corrupt("expected a marker at offset \(i), found 0x\(hex(b[i]))")
            }
            while i < n, b[i] == 0xFF { i += 1 } // fill bytes
            guard i < n else { throw truncated("the data ends inside a marker") }
            let marker = b[i]
            i += 1
            switch marker {
            case 0xD9: // EOI
                guard let frame else { throw corrupt("EOI before any frame header") }
                guard scans > 0 else { throw corrupt("EOI before any scan") }
                return Summary(width: frame.width, height: frame.height, scans: scans)
            case 0xD8:
                throw corrupt("a second SOI marker at offset \(i - 2)")
            case 0x00:
                throw corrupt("stuffed byte 0xFF00 outside scan data at offset \(i - 2)")
            case 0x01, 0xD0...0xD7: // TEM and RSTn stand alone
                continue
            default:
                break
            }
            guard i + 2 <= n else { throw truncated("the data ends inside the length of marker 0xFF\(hex(marker))") }
            let length = Int(b[i]) << 8 | Int(b[i + 1])
            guard length >= 2 else { throw corrupt("marker 0xFF\(hex(marker)) has length \(length)") }
            guard length <= n - i else {
                throw truncated("segment 0xFF\(hex(marker)) at offset \(i - 2) needs \(length) bytes, \(n - i) left")
            }
            let payload = i + 2
            switch marker {
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF: // SOFn
                guard frame == nil else { throw corrupt("a second frame header (SOF) at offset \(i - 2)") }
                guard length >= 8 else { throw corrupt("frame header too short") }
                let height = Int(b[payload + 1]) << 8 | Int(b[payload + 2])
                let width = Int(b[payload + 3]) << 8 | Int(b[payload + 4])
                let components = Int(b[payload + 5])
                guard components >= 1, length == 8 + 3 * components else {
                    throw corrupt("frame header length \(length) does not match \(components) components")
                }
                guard width > 0, height > 0 else { throw corrupt("frame header declares \(width)x\(height)") }
                frame = (width, height)
            case 0xDA: // SOS, then entropy-coded data
                guard frame != nil else { throw corrupt("scan before the frame header") }
                guard length >= 3 else { throw corrupt("scan header too short") }
                let components = Int(b[payload])
                guard (1...4).contains(components), length == 6 + 2 * components else {
                    throw corrupt("scan header length \(length) does not match \(components) components")
                }
                scans += 1
                guard scans <= Int(PREFETCH_JPEG_MAX_SCANS) else {
                    throw corrupt("more than \(PREFETCH_JPEG_MAX_SCANS) scans")
                }
                i = try endOfScanData(b, from: i + length)
                continue
            default: // tables, APPn, COM, DRI, DNL...: skipped by length
                break
            }
            i += length
        }
    }

    /// Returns the offset of the 0xFF that starts the first marker after scan data: 0xFF
    /// followed by anything but 0x00 (a stuffed byte), a restart marker or another 0xFF.
    private static func endOfScanData(_ b: UnsafeRawBufferPointer, from start: Int) throws(ImageError) -> Int {
        guard let base = b.baseAddress else { throw truncated("no scan data") }
        let n = b.count
        var i = start
        while i < n {
            guard let found = memchr(base + i, 0xFF, n - i) else { break }
            i = base.distance(to: UnsafeRawPointer(found))
            guard i + 1 < n else { break }
            let next = b[i + 1]
            if next == 0x00 || (0xD0...0xD7).contains(next) {
                i += 2
            } else if next == 0xFF {
                i += 1
            } else {
                return i
            }
        }
        throw truncated("scan data runs to the end of the data without an EOI marker")
    }

    private static func hex(_ byte: UInt8) -> String {
        let s = String(byte, radix: 16, uppercase: true)
        return s.count == 1 ? "0" + s : s
    }

    private static func truncated(_ detail: String) -> ImageError { .truncated(.jpeg, detail: detail) }
    private static func corrupt(_ detail: String) -> ImageError { .corrupt(.jpeg, detail: detail) }
}
