// Measures what image verification and thumbnails cost per file. Run through
// scripts/bench-image.sh (release build). Images are synthetic (gradients, texture, noise,
// edges) and encoded with the module's own encoders; their sizes are printed.
import CImageProbe
import Foundation
import PrefetchImage

let args = CommandLine.arguments
let seconds = args.count > 1 ? Double(args[1]) ?? 1.0 : 1.0 // time budget per measurement

// MARK: Images

struct Rng {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state >> 33
    }
}

func scene(width: Int, height: Int, channels: Int, noise: Int, seed: UInt64 = 7) -> [UInt8] {
    var rng = Rng(state: seed)
    var px = [UInt8](repeating: 0, count: width * height * channels)
    let w = Double(width), h = Double(height)
    for y in 0..<height {
        for x in 0..<width {
            let fx = Double(x) / w, fy = Double(y) / h
            var r = 128 + 90 * sin(fx * 11) * cos(fy * 7)
            var g = 255 * fx * 0.7 + 40 * sin(fy * 40)
            var b = 255 * fy * 0.8 + 30 * cos(fx * 25 + fy * 9)
            if (fx - 0.6) * (fx - 0.6) + (fy - 0.4) * (fy - 0.4) < 0.03 { r = 235; g = 190; b = 50 }
            if fx > 0.15, fx < 0.3, fy > 0.55, fy < 0.9 { r = 30; g = 60; b = 140 }
            let i = (y * width + x) * channels
            let n = Double(Int(rng.next() % UInt64(2 * noise + 1)) - noise)
            let values = [r + n, g + n, b + n, 255 * (1 - fx * 0.5)]
            for c in 0..<channels { px[i + c] = UInt8(max(0, min(255, values[c]))) }
        }
    }
    return px
}

func encodeJPEG(width: Int, height: Int, quality: Int = 85) -> [UInt8] {
    let px = scene(width: width, height: height, channels: 3, noise: 6)
    var out = prefetch_encoded()
    var status = prefetch_image_status()
    prefetch_jpeg_encode(px, UInt32(width), UInt32(height), 3, Int32(quality), &out, &status)
    precondition(status.code == 0)
    defer { free(out.data) }
    return Array(UnsafeBufferPointer(start: out.data, count: out.size))
}

func encodePNG(width: Int, height: Int, channels: Int = 3) -> [UInt8] {
    let px = scene(width: width, height: height, channels: channels, noise: 3)
    var out = prefetch_encoded()
    var status = prefetch_image_status()
    prefetch_png_encode(px, UInt32(width), UInt32(height), Int32(channels), &out, &status)
    precondition(status.code == 0)
    defer { free(out.data) }
    return Array(UnsafeBufferPointer(start: out.data, count: out.size))
}

/// The 4:3 image whose encoding is closest to `target` bytes.
func sized(_ target: Int, _ encode: (Int, Int) -> [UInt8]) -> (bytes: [UInt8], width: Int, height: Int) {
    var width = 320
    var best = encode(width, width * 3 / 4)
    for _ in 0..<4 {
        width = max(16, Int(Double(width) * (Double(target) / Double(best.count)).squareRoot()))
        best = encode(width, width * 3 / 4)
    }
    return (best, width, width * 3 / 4)
}

// MARK: Timing

/// Mean time per call in microseconds, over as many calls as fit in the budget.
func measure(_ body: () -> Void) -> Double {
    for _ in 0..<3 { body() } // warm up
    let clock = ContinuousClock()
    var calls = 0
    let start = clock.now
    let budget = Duration.milliseconds(Int(seconds * 1000))
    while clock.now - start < budget || calls < 5 {
        body()
        calls += 1
    }
    let elapsed = clock.now - start
    let (s, atto) = elapsed.components
    return (Double(s) * 1e6 + Double(atto) / 1e12) / Double(calls)
}

func row(_ label: String, _ micros: Double) {
    let value = micros >= 1000 ? String(format: "%9.2f ms", micros / 1000) : String(format: "%9.1f µs", micros)
    print("  \(label.padding(toLength: 44, withPad: " ", startingAt: 0)) \(value)   (\(String(format: "%.0f", 1e6 / micros))/s per core)")
}

func verifyCost(_ bytes: [UInt8], _ level: VerificationLevel) -> Double {
    bytes.withUnsafeBytes { b in
        measure { _ = try! ImageVerifier.verify(b, level: level, limits: ImageLimits(), expectImage: true) }
    }
}

// MARK: Run

let jpeg20 = sized(20_000) { encodeJPEG(width: $0, height: $1) }
let png20 = sized(20_000) { encodePNG(width: $0, height: $1) }
let jpeg1080 = encodeJPEG(width: 1920, height: 1080)
let png1080 = encodePNG(width: 1920, height: 1080)
let png1080a = encodePNG(width: 1920, height: 1080, channels: 4)

print("prefetchd image bench: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(seconds) s per figure")
print("images: JPEG \(jpeg20.width)x\(jpeg20.height) \(jpeg20.bytes.count) B, PNG \(png20.width)x\(png20.height) \(png20.bytes.count) B,")
print("        1080p JPEG q85 \(jpeg1080.count) B, 1080p PNG RGB \(png1080.count) B, 1080p PNG RGBA \(png1080a.count) B")

for (name, bytes) in [("~20 KB JPEG", jpeg20.bytes), ("~20 KB PNG", png20.bytes)] {
    print("verify \(name), per file:")
    for level in VerificationLevel.allCases { row("level \(level.rawValue)", verifyCost(bytes, level)) }
}
print("verify 1080p, per file:")
row("JPEG structure", verifyCost(jpeg1080, .structure))
row("JPEG full (IDCT at 1/8, as shipped)", verifyCost(jpeg1080, .full))
row("JPEG full decode at 1/1 (for comparison)", jpeg1080.withUnsafeBytes { b in
    measure {
        var s = prefetch_image_status()
        prefetch_jpeg_verify(b.baseAddress!.assumingMemoryBound(to: UInt8.self), b.count, UInt64.max, 1, &s)
        precondition(s.code == 0)
    }
})
row("PNG RGB structure", verifyCost(png1080, .structure))
row("PNG RGB full", verifyCost(png1080, .full))

// A pixel bomb: the ~20 KB JPEG with its frame header saying 50000x50000.
var bomb = jpeg20.bytes
let sof = (2..<bomb.count - 1).first { bomb[$0] == 0xFF && bomb[$0 + 1] == 0xC0 }!
for i in [sof + 5, sof + 7] { bomb[i] = 0xC3; bomb[i + 1] = 0x50 }
row("50000x50000 JPEG bomb refused (full)", bomb.withUnsafeBytes { b in
    measure {
        do {
            _ = try ImageVerifier.verify(b, level: .full, limits: ImageLimits(), expectImage: true)
            fatalError("bomb accepted")
        } catch let error as ImageError {
            precondition(error.code == "too_many_pixels")
        } catch {
            fatalError("\(error)")
        }
    }
})

// verify(fileAt:) adds open + fstat + mmap + munmap.
let dir = FileManager.default.temporaryDirectory.appendingPathComponent("prefetchd-imagebench-\(getpid())")
try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: dir) }
let jpegPath = dir.appendingPathComponent("a.jpg").path
try Data(jpeg20.bytes).write(to: URL(fileURLWithPath: jpegPath))
print("verify(fileAt:) ~20 KB JPEG (mmap), per file:")
row("level structure", measure { _ = try! ImageVerifier.verify(fileAt: jpegPath, level: .structure, limits: ImageLimits(), expectImage: true) })

print("decode + thumbnail 1080p, per file:")
for side in [256, 512] {
    row("JPEG -> \(side)px JPEG q85", jpeg1080.withUnsafeBytes { b in
        measure { _ = try! Thumbnailer.make(from: b, longestSide: side, jpegQuality: 85, limits: ImageLimits()) }
    })
}
row("JPEG full-size decode alone (reference)", jpeg1080.withUnsafeBytes { b in
    let out = UnsafeMutableRawBufferPointer.allocate(byteCount: 1920 * 1080 * 3, alignment: 16)
    defer { out.deallocate() }
    return measure {
        var s = prefetch_image_status()
        prefetch_jpeg_decode_resized(b.baseAddress!.assumingMemoryBound(to: UInt8.self), b.count, UInt64.max, 1920, 1080,
                                     out.baseAddress!.assumingMemoryBound(to: UInt8.self), &s)
        precondition(s.code == 0)
    }
})
for side in [256, 512] {
    row("PNG RGB -> \(side)px PNG", png1080.withUnsafeBytes { b in
        measure { _ = try! Thumbnailer.make(from: b, longestSide: side, jpegQuality: 85, limits: ImageLimits()) }
    })
}
row("PNG RGBA -> 256px PNG", png1080a.withUnsafeBytes { b in
    measure { _ = try! Thumbnailer.make(from: b, longestSide: 256, jpegQuality: 85, limits: ImageLimits()) }
})

func thumbnailBytes(_ source: [UInt8], _ side: Int) -> Int {
    source.withUnsafeBytes { b in try! Thumbnailer.make(from: b, longestSide: side, jpegQuality: 85, limits: ImageLimits()).data.count }
}
print("thumbnail sizes: JPEG 256px \(thumbnailBytes(jpeg1080, 256)) B, 512px \(thumbnailBytes(jpeg1080, 512)) B;"
    + " PNG RGB 256px \(thumbnailBytes(png1080, 256)) B, 512px \(thumbnailBytes(png1080, 512)) B;"
    + " PNG RGBA 256px \(thumbnailBytes(png1080a, 256)) B")

// Throughput through the pool: all cores.
let pool = ImageProcessingPool()
let jobs = 64
let shared = jpeg1080
let clock = ContinuousClock()
let started = clock.now
for _ in 0..<jobs {
    pool.submit { shared.withUnsafeBytes { b in _ = try! Thumbnailer.make(from: b, longestSide: 256, jpegQuality: 85, limits: ImageLimits()) } }
}
pool.shutdown()
let wall = clock.now - started
let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
print("pool (\(pool.threadCount) threads): \(jobs) x 1080p JPEG -> 256px in \(String(format: "%.2f", wallSeconds)) s = \(String(format: "%.0f", Double(jobs) / wallSeconds)) thumbnails/s")
