import Foundation
import Testing
@testable import PrefetchImage

@Suite struct ThumbnailTests {
    static let sources: [(String, [UInt8])] = [
        ("jpeg 1000x750", Fixture.jpeg(width: 1000, height: 750)),
        ("grey jpeg 333x101", Fixture.jpeg(width: 333, height: 101, channels: 1)),
        ("jpeg 120x640", Fixture.jpeg(width: 120, height: 640)),
        ("png rgba 500x375", Fixture.png(width: 500, height: 375, channels: 4)),
        ("png grey+alpha 101x333", Fixture.png(width: 101, height: 333, channels: 2)),
        ("png rgb 640x480", Fixture.png(width: 640, height: 480, channels: 3)),
    ] + (Fixture.jpegs + Fixture.pngs).map { ($0.name, Fixture.bytes($0.name)) }

    @Test(arguments: [100, 37, 16, 1])
    func longestSideAndAspectRatio(_ side: Int) throws {
        for (name, bytes) in Self.sources {
            let header = try withBytes(bytes) { b throws(ImageError) in try ImageHeader.read(b) }
            let thumb = try thumbnail(bytes, longestSide: side)
            let longest = max(header.width, header.height)
            let expectedSide = min(side, longest) // never enlarged
            #expect(thumb.format == header.format, "\(name)")
            #expect(max(thumb.width, thumb.height) == expectedSide, "\(name): \(thumb.width)x\(thumb.height)")
            #expect(thumb.scaled == (longest > side), "\(name)")
            // Aspect ratio within a pixel.
            let expectedShort = Double(min(header.width, header.height)) * Double(expectedSide) / Double(longest)
            #expect(abs(Double(min(thumb.width, thumb.height)) - expectedShort) <= 1 || min(thumb.width, thumb.height) == 1,
                    "\(name): \(thumb.width)x\(thumb.height)")
            #expect(thumb.width == thumb.height || (thumb.width > thumb.height) == (header.width > header.height), "\(name)")
            // The output decodes cleanly.
            let info = try verify([UInt8](thumb.data), .full)
            #expect(info == ImageInfo(format: header.format, width: thumb.width, height: thumb.height), "\(name)")
        }
    }

    @Test func neverUpscales() throws {
        let thumb = try thumbnail(Fixture.bytes("baseline.jpg"), longestSide: 1000)
        #expect(thumb.width == 64 && thumb.height == 48 && !thumb.scaled)
        #expect(try verify([UInt8](thumb.data), .full).width == 64)
        let same = try thumbnail(Fixture.bytes("rgba.png"), longestSide: 64)
        #expect(same.width == 64 && same.height == 48 && !same.scaled)
    }

    @Test func targetSizes() {
        #expect(Thumbnailer.targetSize(width: 1920, height: 1080, longestSide: 256) == (256, 144))
        #expect(Thumbnailer.targetSize(width: 333, height: 101, longestSide: 100) == (100, 30))
        #expect(Thumbnailer.targetSize(width: 1, height: 500, longestSide: 100) == (1, 100))
        #expect(Thumbnailer.targetSize(width: 5000, height: 1, longestSide: 10) == (10, 1))
        #expect(Thumbnailer.targetSize(width: 50, height: 40, longestSide: 100) == (50, 40))
    }

    @Test(arguments: ["rgba.png", "palette.png", "rgba16.png"])
    func pngKeepsAlpha(_ name: String) throws {
        let thumb = try thumbnail(Fixture.bytes(name), longestSide: 32)
        let bytes = [UInt8](thumb.data)
        #expect([4, 6].contains(bytes[25]), "colour type \(bytes[25])") // IHDR: grey+alpha or RGBA
        let decoded = try decodePNG(bytes)
        #expect(decoded.channels == 4)
        let alphas = stride(from: 3, to: decoded.pixels.count, by: 4).map { decoded.pixels[$0] }
        #expect(alphas.contains(0))
        #expect(alphas.contains { $0 > 0 && $0 < 255 } || name == "palette.png")
    }

    @Test func opaquePngStaysOpaque() throws {
        for name in ["rgb.png", "grey16.png", "interlaced.png"] {
            let bytes = [UInt8](try thumbnail(Fixture.bytes(name), longestSide: 20).data)
            #expect([0, 2].contains(bytes[25]), "\(name): colour type \(bytes[25])")
        }
    }

    /// Transparent pixels do not darken their opaque neighbours: colour is weighted by alpha.
    @Test func alphaWeightedAveraging() throws {
        var px = [UInt8](repeating: 0, count: 4 * 4 * 4)
        for y in 0..<4 {
            for x in 0..<4 where (x + y) % 2 == 0 {
                let i = (y * 4 + x) * 4
                px[i] = 255; px[i + 1] = 0; px[i + 2] = 0; px[i + 3] = 255 // opaque red; others clear black
            }
        }
        let thumb = try thumbnail(Fixture.png(px, width: 4, height: 4, channels: 4), longestSide: 2)
        let out = try decodePNG([UInt8](thumb.data))
        #expect(out.width == 2 && out.height == 2 && out.channels == 4)
        for p in stride(from: 0, to: out.pixels.count, by: 4) {
            #expect(Array(out.pixels[p..<p + 3]) == [255, 0, 0])
            #expect((127...128).contains(out.pixels[p + 3]))
        }
    }

    /// Area averaging with fractional coverage: 3 columns into 2.
    @Test func fractionalCoverage() throws {
        let px: [UInt8] = [0, 90, 180, 0, 90, 180, 0, 90, 180] // 3x3 grey
        let thumb = try thumbnail(Fixture.png(px, width: 3, height: 3, channels: 1), longestSide: 2)
        let out = try decodePNG([UInt8](thumb.data))
        #expect(out.pixels == [30, 150, 30, 150])
    }

    @Test func solidColourSurvives() throws {
        let w = 400, h = 300
        var px = [UInt8](repeating: 0, count: w * h * 3)
        for i in stride(from: 0, to: px.count, by: 3) { px[i] = 200; px[i + 1] = 100; px[i + 2] = 50 }
        let jpeg = try px.withUnsafeBytes { try JPEGCodec.encode($0, width: w, height: h, channels: 3, quality: 95) }
        let thumb = try thumbnail([UInt8](jpeg), longestSide: 30)
        let out = try decodeJPEG([UInt8](thumb.data))
        #expect(out.channels == 3)
        for (i, v) in out.pixels.enumerated() {
            #expect(abs(Int(v) - [200, 100, 50][i % 3]) <= 4)
        }
    }

    /// The CMYK fixture (Adobe, inverted) comes out in the same colours as its RGB original.
    @Test func cmykBecomesRGB() throws {
        let cmyk = try decodeJPEG([UInt8](try thumbnail(Fixture.bytes("cmyk.jpg"), longestSide: 32).data))
        let rgb = try decodeJPEG([UInt8](try thumbnail(Fixture.bytes("baseline.jpg"), longestSide: 32).data))
        #expect(cmyk.channels == 3 && cmyk.pixels.count == rgb.pixels.count)
        let meanDifference = zip(cmyk.pixels, rgb.pixels).map { abs(Int($0) - Int($1)) }.reduce(0, +) / rgb.pixels.count
        #expect(meanDifference < 12)
    }

    @Test func greyJpegStaysGrey() throws {
        let out = try decodeJPEG([UInt8](try thumbnail(Fixture.bytes("grey.jpg"), longestSide: 32).data))
        #expect(out.channels == 1)
    }

    @Test func refusals() {
        #expect(throws: ImageError.unsupportedFormat(.gif)) { try thumbnail(Fixture.bytes("small.gif"), longestSide: 10) }
        #expect(throws: ImageError.unsupportedFormat(.webp)) { try thumbnail(Fixture.bytes("small.webp"), longestSide: 10) }
        let truncatedJPEG = Array(Fixture.bytes("progressive.jpg").dropLast(40))
        #expect(error { () throws(ImageError) in _ = try thumbnail(truncatedJPEG, longestSide: 10) }?.code == "truncated")
        let truncatedPNG = Array(Fixture.bytes("rgba.png").dropLast(40))
        #expect(error { () throws(ImageError) in _ = try thumbnail(truncatedPNG, longestSide: 10) }?.code == "truncated")
        #expect(error { () throws(ImageError) in _ = try thumbnail(Fixture.bytes("rgb.png"), longestSide: 0) }?.code == "invalid_argument")
        #expect(error { () throws(ImageError) in
            _ = try withBytes(Fixture.bytes("rgb.png")) { b throws(ImageError) in
                try Thumbnailer.make(from: b, longestSide: 10, jpegQuality: 0)
            }
        }?.code == "invalid_argument")
    }

    @Test func jpegQualityChangesSize() throws {
        let source = Fixture.jpeg(width: 800, height: 600)
        let low = try withBytes(source) { b throws(ImageError) in try Thumbnailer.make(from: b, longestSide: 200, jpegQuality: 30) }
        let high = try withBytes(source) { b throws(ImageError) in try Thumbnailer.make(from: b, longestSide: 200, jpegQuality: 95) }
        #expect(low.data.count < high.data.count)
    }
}
