import CImageProbe

/// Reads and walks PNG chunks without inflating anything: the signature, IHDR first (with
/// valid fields), every chunk's length and CRC, PLTE where a palette image needs it,
/// consecutive IDATs (at least one), and IEND last. A file cut short at any byte fails:
/// success needs the whole IEND chunk, CRC included. Bytes after IEND are ignored, as
/// decoders do.
enum PNGStructure {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    struct Header: Equatable {
        var width: Int
        var height: Int
        var bitDepth: Int
        var colorType: Int
        var interlaced: Bool
    }

    private static let validDepths: [Int: Set<Int>] = [
        0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16],
    ]

    static func readHeader(_ b: UnsafeRawBufferPointer) throws(ImageError) -> Header {
        let prefix = min(b.count, 8)
        guard b.prefix(prefix).elementsEqual(signature.prefix(prefix)) else { throw corrupt("bad PNG signature") }
        guard b.count >= 8 + 8 + 13 + 4 else { throw truncated("the data ends inside the IHDR chunk") }
        guard chunkType(b, at: 8) == "IHDR" else {
            throw corrupt("the first chunk is \(chunkType(b, at: 8)), not IHDR")
        }
        guard u32(b, 8) == 13 else { throw corrupt("IHDR length is \(u32(b, 8)), not 13") }
        try checkCRC(b, chunkAt: 8, length: 13, type: "IHDR")
        let width = Int(u32(b, 16)), height = Int(u32(b, 20))
        let depth = Int(b[24]), colorType = Int(b[25])
        guard (1...0x7FFF_FFFF).contains(width), (1...0x7FFF_FFFF).contains(height) else {
            throw corrupt("IHDR declares \(width)x\(height)")
        }
        guard let depths = validDepths[colorType] else { throw corrupt("invalid colour type \(colorType)") }
        guard depths.contains(depth) else { throw corrupt("bit depth \(depth) is invalid for colour type \(colorType)") }
        guard b[26] == 0, b[27] == 0 else { throw corrupt("unknown compression or filter method") }
        guard b[28] <= 1 else { throw corrupt("unknown interlace method \(b[28])") }
        return Header(width: width, height: height, bitDepth: depth, colorType: colorType, interlaced: b[28] == 1)
    }

    static func walk(_ b: UnsafeRawBufferPointer) throws(ImageError) {
        let header = try readHeader(b)
        let n = b.count
        var i = 8
        var sawPLTE = false, sawIDAT = false, idatEnded = false
        while true {
            guard n - i >= 8 else { throw truncated("the data ends before the IEND chunk") }
            let length = Int(u32(b, i))
            guard length <= 0x7FFF_FFFF else { throw corrupt("chunk length \(length) at offset \(i)") }
            let typeBytes = b[(i + 4)..<(i + 8)]
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw corrupt("invalid chunk type at offset \(i)")
            }
            let type = chunkType(b, at: i)
            guard length + 12 <= n - i else {
                throw truncated("chunk \(type) at offset \(i) needs \(length + 12) bytes, \(n - i) left")
            }
            try checkCRC(b, chunkAt: i, length: length, type: type)
            if i == 8 { // readHeader checked that this is IHDR
                i += 12 + length
                continue
            }
            if sawIDAT, type != "IDAT" { idatEnded = true }
            switch type {
            case "IHDR":
                throw corrupt("a second IHDR chunk")
            case "PLTE":
                guard !sawIDAT else { throw corrupt("PLTE after IDAT") }
                guard !sawPLTE else { throw corrupt("a second PLTE chunk") }
                guard header.colorType != 0, header.colorType != 4 else { throw corrupt("PLTE in a greyscale image") }
                guard length % 3 == 0, (3...768).contains(length) else { throw corrupt("PLTE length \(length)") }
                sawPLTE = true
            case "IDAT":
                guard !idatEnded else { throw corrupt("IDAT chunks are not consecutive") }
                guard header.colorType != 3 || sawPLTE else { throw corrupt("palette image without PLTE before IDAT") }
                sawIDAT = true
            case "IEND":
                guard sawIDAT else { throw corrupt("IEND before any IDAT") }
                guard length == 0 else { throw corrupt("IEND has data") }
                return
            default:
                guard typeBytes.first! & 0x20 != 0 else { throw corrupt("unknown critical chunk \(type)") }
            }
            i += 12 + length
        }
    }

    private static func checkCRC(_ b: UnsafeRawBufferPointer, chunkAt i: Int, length: Int, type: String) throws(ImageError) {
        let computed = prefetch_crc32(0, b.baseAddress!.assumingMemoryBound(to: UInt8.self) + i + 4, length + 4)
        guard computed == u32(b, i + 8 + length) else { throw corrupt("CRC mismatch in the \(type) chunk at offset \(i)") }
    }

    private static func u32(_ b: UnsafeRawBufferPointer, _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    private static func chunkType(_ b: UnsafeRawBufferPointer, at i: Int) -> String {
        String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
    }

    private static func truncated(_ detail: String) -> ImageError { .truncated(.png, detail: detail) }
    private static func corrupt(_ detail: String) -> ImageError { .corrupt(.png, detail: detail) }
}
