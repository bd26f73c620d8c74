import Testing
import Foundation
@testable import PrefetchImage

/// Test images: committed fixtures (Fixtures/make_fixtures.py) and synthetic ones encoded
/// with the module's own encoders.
enum Fixture {
    struct Info: Sendable, CustomTestStringConvertible {
        let name: String
        let format: ImageFormat
        let width: Int
        let height: Int
        var testDescription: String { name }
    }

    static let jpegs: [Info] = ["baseline.jpg", "progressive.jpg", "grey.jpg", "cmyk.jpg", "restart.jpg", "app1.jpg"]
        .map { Info(name: $0, format: .jpeg, width: 64, height: 48) }
    static let pngs: [Info] = ["rgb.png", "rgba.png", "palette.png", "grey16.png", "rgba16.png", "interlaced.png"]
        .map { Info(name: $0, format: .png, width: 64, height: 48) }
    static let others: [Info] = [
        Info(name: "small.gif", format: .gif, width: 0, height: 0),
        Info(name: "small.webp", format: .webp, width: 0, height: 0),
    ]
    static let all = jpegs + pngs + others

    static func bytes(_ name: String) -> [UInt8] {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"),
              let data = try? Data(contentsOf: url) else { fatalError("missing fixture \(name)") }
        return [UInt8](data)
    }

    /// A smooth picture with an edge, 8-bit, `channels` 1...4 (alpha: opaque left, clear right).
    static func pixels(width: Int, height: Int, channels: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * channels
                let r = UInt8(truncatingIfNeeded: x * 255 / max(1, width - 1))
                let g = UInt8(truncatingIfNeeded: y * 255 / max(1, height - 1))
                let b: UInt8 = (x / 16 + y / 16) % 2 == 0 ? 40 : 200
                switch channels {
                case 1: out[i] = g
                case 2: out[i] = g; out[i + 1] = UInt8(255 - Int(r))
                case 3: out[i] = r; out[i + 1] = g; out[i + 2] = b
                default: out[i] = r; out[i + 1] = g; out[i + 2] = b; out[i + 3] = UInt8(255 - Int(r))
                }
            }
        }
        return out
    }

    static func jpeg(width: Int, height: Int, channels: Int = 3, quality: Int = 90) -> [UInt8] {
        let px = pixels(width: width, height: height, channels: channels)
        let data = try! px.withUnsafeBytes { try JPEGCodec.encode($0, width: width, height: height, channels: channels, quality: quality) }
        return [UInt8](data)
    }

    static func png(width: Int, height: Int, channels: Int) -> [UInt8] {
        png(pixels(width: width, height: height, channels: channels), width: width, height: height, channels: channels)
    }

    static func png(_ px: [UInt8], width: Int, height: Int, channels: Int) -> [UInt8] {
        let data = try! px.withUnsafeBytes { try PNGCodec.encode($0, width: width, height: height, channels: channels) }
        return [UInt8](data)
    }
}

/// Runs `body` on the bytes, keeping the error's type.
func withBytes<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(ImageError) -> R) throws(ImageError) -> R {
    let result: Result<R, ImageError> = bytes.withUnsafeBytes { raw in
        Result { () throws(ImageError) -> R in try body(raw) }
    }
    return try result.get()
}

func verify(_ bytes: [UInt8], _ level: VerificationLevel, limits: ImageLimits = ImageLimits(),
            expectImage: Bool = true) throws(ImageError) -> ImageInfo {
    try withBytes(bytes) { b throws(ImageError) in try ImageVerifier.verify(b, level: level, limits: limits, expectImage: expectImage) }
}

func thumbnail(_ bytes: [UInt8], longestSide: Int, limits: ImageLimits = ImageLimits()) throws(ImageError) -> Thumbnail {
    try withBytes(bytes) { b throws(ImageError) in try Thumbnailer.make(from: b, longestSide: longestSide, limits: limits) }
}

/// The error `body` throws, or nil.
func error(_ body: () throws(ImageError) -> Void) -> ImageError? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}

/// Decodes a PNG to 8-bit pixels at its own size (through the thumbnail decoder).
func decodePNG(_ bytes: [UInt8]) throws(ImageError) -> (pixels: [UInt8], width: Int, height: Int, channels: Int) {
    let header = try withBytes(bytes) { b throws(ImageError) in try ImageHeader.read(b) }
    var px = [UInt8](repeating: 0, count: header.width * header.height * 4)
    let channels = try withBytes(bytes) { b throws(ImageError) in
        let result: Result<Int, ImageError> = px.withUnsafeMutableBytes { out in
            Result { () throws(ImageError) -> Int in
                try PNGCodec.decodeResized(b, width: header.width, height: header.height, limits: ImageLimits(), into: out)
            }
        }
        return try result.get()
    }
    return (Array(px.prefix(header.width * header.height * channels)), header.width, header.height, channels)
}

/// Decodes a JPEG to 8-bit pixels at its own size.
func decodeJPEG(_ bytes: [UInt8]) throws(ImageError) -> (pixels: [UInt8], width: Int, height: Int, channels: Int) {
    let header = try withBytes(bytes) { b throws(ImageError) in try ImageHeader.read(b) }
    var px = [UInt8](repeating: 0, count: header.width * header.height * 3)
    let channels = try withBytes(bytes) { b throws(ImageError) in
        let result: Result<Int, ImageError> = px.withUnsafeMutableBytes { out in
            Result { () throws(ImageError) -> Int in
                try JPEGCodec.decodeResized(b, width: header.width, height: header.height, limits: ImageLimits(), into: out)
            }
        }
        return try result.get()
    }
    return (Array(px.prefix(header.width * header.height * channels)), header.width, header.height, channels)
}

/// PNG chunk surgery for tests.
enum PNGBytes {
    static func u32(_ b: [UInt8], _ i: Int) -> Int {
        Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
    }

    static func put32(_ b: inout [UInt8], _ i: Int, _ v: UInt32) {
        b[i] = UInt8(v >> 24); b[i + 1] = UInt8((v >> 16) & 0xFF); b[i + 2] = UInt8((v >> 8) & 0xFF); b[i + 3] = UInt8(v & 0xFF)
    }

    /// Offsets of each chunk: (offset, type, length).
    static func chunks(_ b: [UInt8]) -> [(offset: Int, type: String, length: Int)] {
        var out: [(Int, String, Int)] = []
        var i = 8
        while i + 8 <= b.count {
            let length = u32(b, i)
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            out.append((i, type, length))
            i += 12 + length
            if type == "IEND" { break }
        }
        return out
    }

    static func crc(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    static func fixCRC(_ b: inout [UInt8], chunkAt i: Int) {
        let length = u32(b, i)
        put32(&b, i + 8 + length, crc(b[(i + 4)..<(i + 8 + length)]))
    }

    /// Inserts an ancillary chunk just after IHDR.
    static func inserting(_ type: String, _ data: [UInt8], into b: [UInt8]) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 4) + Array(type.utf8) + data + [0, 0, 0, 0]
        put32(&chunk, 0, UInt32(data.count))
        fixCRC(&chunk, chunkAt: 0)
        return Array(b[0..<33]) + chunk + Array(b[33...])
    }
}
