import Foundation
import Testing
@testable import PrefetchImage

@Suite struct VerificationTests {
    @Test(arguments: Fixture.all)
    func fixtureVerifiesAtEveryLevel(_ fixture: Fixture.Info) throws {
        let bytes = Fixture.bytes(fixture.name)
        for level in VerificationLevel.allCases {
            let info = try verify(bytes, level)
            let sized = level != .none && fixture.format.isVerifiable
            #expect(info == ImageInfo(format: fixture.format, width: sized ? fixture.width : 0,
                                      height: sized ? fixture.height : 0), "level \(level)")
        }
    }

    @Test(arguments: Fixture.jpegs + Fixture.pngs)
    func headerReadsDimensions(_ fixture: Fixture.Info) throws {
        let header = try withBytes(Fixture.bytes(fixture.name)) { b throws(ImageError) in try ImageHeader.read(b) }
        #expect(header == ImageHeader(format: fixture.format, width: 64, height: 48))
    }

    /// Every prefix of a JPEG, from 0 bytes to one byte short, is refused by `structure` and by
    /// `full`, and also by the libjpeg decoder alone (which, left to its defaults, would fill the
    /// missing rows with grey and succeed).
    @Test(arguments: Fixture.jpegs)
    func jpegCutAtEveryOffsetIsRejected(_ fixture: Fixture.Info) {
        expectEveryTruncationRejected(fixture, sniffLength: 3) { b throws(ImageError) in try JPEGCodec.verify(b, limits: ImageLimits()) }
    }

    /// The same for PNG, with libpng as the decoder.
    @Test(arguments: Fixture.pngs)
    func pngCutAtEveryOffsetIsRejected(_ fixture: Fixture.Info) {
        expectEveryTruncationRejected(fixture, sniffLength: 8) { b throws(ImageError) in try PNGCodec.verify(b, limits: ImageLimits()) }
    }

    /// Cuts `fixture` at every offset: `structure`, `full` and the bare decoder must all refuse
    /// each prefix, as truncated once the format can be sniffed (`sniffLength` bytes).
    private func expectEveryTruncationRejected<T>(
        _ fixture: Fixture.Info, sniffLength: Int,
        decoder: (UnsafeRawBufferPointer) throws(ImageError) -> T
    ) {
        let bytes = Fixture.bytes(fixture.name)
        var accepted: [String] = []
        var notTruncated: [String] = []
        for cut in 0..<bytes.count {
            let prefix = Array(bytes[0..<cut])
            for level in [VerificationLevel.structure, .full] {
                if let e = error({ () throws(ImageError) in _ = try verify(prefix, level) }) {
                    if cut >= sniffLength, e.code != "truncated" { notTruncated.append("\(cut)/\(level): \(e)") }
                } else {
                    accepted.append("\(cut)/\(level)")
                }
            }
            if error({ () throws(ImageError) in _ = try withBytes(prefix) { b throws(ImageError) in try decoder(b) } }) == nil {
                accepted.append("\(cut)/decoder")
            }
        }
        #expect(accepted.isEmpty, "accepted truncations: \(accepted.prefix(10))")
        #expect(notTruncated.isEmpty, "\(notTruncated.prefix(5))")
    }

    @Test func truncationDetailIsUserFacing() {
        let bytes = Fixture.bytes("baseline.jpg")
        let e = error { () throws(ImageError) in _ = try verify(Array(bytes.dropLast(100)), .structure) }
        #expect(e?.description.hasPrefix("truncated JPEG: ") == true)
        #expect(e?.isContentError == true)
    }

    @Test(arguments: ["rgb.png", "palette.png", "interlaced.png"])
    func pngWithBadCRCIsRejected(_ name: String) throws {
        let bytes = Fixture.bytes(name)
        let idat = try #require(PNGBytes.chunks(bytes).first { $0.type == "IDAT" })
        // A flipped bit in the compressed data, CRC left alone.
        var damaged = bytes
        damaged[idat.offset + 8 + idat.length / 2] ^= 0x10
        #expect(try verify(damaged, .header).width == 64) // the header is intact
        for level in [VerificationLevel.structure, .full] {
            let e = error { () throws(ImageError) in _ = try verify(damaged, level) }
            #expect(e?.code == "corrupt", "\(level): \(String(describing: e))")
            #expect(e?.description.contains("CRC") == true, "\(level): \(String(describing: e))")
        }
        // The decoder alone refuses it too.
        #expect(error { () throws(ImageError) in try withBytes(damaged) { b throws(ImageError) in try PNGCodec.verify(b, limits: ImageLimits()) } } != nil)

        // A damaged IHDR CRC fails from the header on.
        var badHeader = bytes
        badHeader[29] ^= 0xFF
        for level in [VerificationLevel.header, .structure, .full] {
            #expect(error { () throws(ImageError) in _ = try verify(badHeader, level) }?.code == "corrupt")
        }
    }

    @Test func pngAncillaryChunkWithBadCRCIsRejected() {
        var bytes = PNGBytes.inserting("tEXt", Array("Comment\u{0}hello".utf8), into: Fixture.bytes("rgb.png"))
        #expect(throws: Never.self) { try verify(bytes, .full) }
        bytes[33 + 8 + 3] ^= 1 // inside the tEXt data
        #expect(error { () throws(ImageError) in _ = try verify(bytes, .structure) }?.code == "corrupt")
        #expect(error { () throws(ImageError) in _ = try verify(bytes, .full) }?.code == "corrupt")
    }

    /// Corruption only a decode can see: all-ones bits are not a valid Huffman code.
    @Test func jpegBadHuffmanDataPassesStructureButNotFull() throws {
        var bytes = Fixture.bytes("baseline.jpg")
        let sos = try #require((2..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let dataStart = sos + 2 + (Int(bytes[sos + 2]) << 8 | Int(bytes[sos + 3]))
        let at = dataStart + (bytes.count - dataStart) / 2
        for k in 0..<8 { bytes[at + k] = k % 2 == 0 ? 0xFF : 0x00 }
        #expect(throws: Never.self) { try verify(bytes, .structure) }
        let e = error { () throws(ImageError) in _ = try verify(bytes, .full) }
        #expect(e?.code == "corrupt", "\(String(describing: e))")
    }

    @Test func jpegMarkerDamageFailsStructure() {
        let bytes = Fixture.bytes("baseline.jpg")
        var noEOI = bytes
        noEOI[noEOI.count - 1] = 0xD8 // FFD8 at the end instead of FFD9
        #expect(error { () throws(ImageError) in _ = try verify(noEOI, .structure) }?.code == "corrupt")
        var badLength = bytes
        badLength[4] = 0xFF // APP0 length far past the end
        #expect(error { () throws(ImageError) in _ = try verify(badLength, .structure) } != nil)
    }

    /// Random damage never crashes, hangs or passes as a different size; thumbnails too.
    @Test(arguments: Fixture.jpegs + Fixture.pngs)
    func randomDamageIsHandled(_ fixture: Fixture.Info) {
        let original = Fixture.bytes(fixture.name)
        var rng = SplitMix(seed: UInt64(original.count))
        for round in 0..<150 {
            var bytes = original
            for _ in 0...(round % 4) {
                bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
            }
            for level in VerificationLevel.allCases {
                if let info = try? verify(bytes, level), level != .none, info.format.isVerifiable {
                    #expect(info.width > 0 && info.height > 0)
                }
            }
            _ = try? thumbnail(bytes, longestSide: 20)
        }
    }

    @Test func bytesAfterTheEndAreIgnored() throws {
        let junk = Array("trailing junk \u{0}\u{1}".utf8)
        #expect(try verify(Fixture.bytes("baseline.jpg") + junk, .full).width == 64)
        #expect(try verify(Fixture.bytes("rgb.png") + junk, .full).width == 64)
    }

    @Test func jpegPixelBombIsRejectedFromTheHeader() throws {
        var bytes = Fixture.bytes("baseline.jpg")
        let sof = try #require((2..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        for i in [sof + 5, sof + 7] { bytes[i] = 0xC3; bytes[i + 1] = 0x50 } // 50000
        let bomb = ImageError.tooManyPixels(width: 50000, height: 50000, limit: 100_000_000)
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for level in [VerificationLevel.header, .structure, .full] {
                #expect(throws: bomb) { try verify(bytes, level) }
            }
            #expect(throws: bomb) { try thumbnail(bytes, longestSide: 100) }
        }
        #expect(elapsed < .milliseconds(500))
        #expect(try verify(bytes, .none).width == 0)
        // A limit the image fits: the header passes, the (tiny) scan data does not.
        #expect(try verify(bytes, .header, limits: ImageLimits(maxPixels: 50000 * 50000)).width == 50000)
    }

    @Test func pngPixelBombIsRejectedFromTheHeader() throws {
        var bytes = Fixture.bytes("rgb.png")
        PNGBytes.put32(&bytes, 16, 50000)
        PNGBytes.put32(&bytes, 20, 50000)
        PNGBytes.fixCRC(&bytes, chunkAt: 8)
        let bomb = ImageError.tooManyPixels(width: 50000, height: 50000, limit: 100_000_000)
        let elapsed = ContinuousClock().measure {
            for level in [VerificationLevel.header, .structure, .full] {
                #expect(throws: bomb) { try verify(bytes, level) }
            }
            #expect(throws: bomb) { try thumbnail(bytes, longestSide: 100) }
        }
        #expect(elapsed < .milliseconds(500))
        // The decoders check the limit themselves too.
        #expect(throws: bomb) {
            try withBytes(bytes) { b throws(ImageError) in try PNGCodec.verify(b, limits: ImageLimits()) }
        }
    }

    @Test func smallLimitsApply() {
        let limits = ImageLimits(maxPixels: 64 * 48 - 1)
        #expect(throws: ImageError.tooManyPixels(width: 64, height: 48, limit: 64 * 48 - 1)) {
            try verify(Fixture.bytes("progressive.jpg"), .header, limits: limits)
        }
        #expect(throws: ImageError.tooManyPixels(width: 64, height: 48, limit: 64 * 48 - 1)) {
            try verify(Fixture.bytes("palette.png"), .structure, limits: limits)
        }
    }

    @Test func htmlIsNotAnImage() throws {
        let html = Array("<!DOCTYPE html>\n<html><head><title>404</title></head><body>Not found</body></html>".utf8)
        for level in [VerificationLevel.header, .structure, .full] {
            #expect(throws: ImageError.notAnImage(detected: "an HTML document")) { try verify(html, level) }
            #expect(try verify(html, level, expectImage: false) == ImageInfo(format: .unknown, width: 0, height: 0))
        }
        #expect(try verify(html, .none) == ImageInfo(format: .unknown, width: 0, height: 0))
        let e = error { () throws(ImageError) in _ = try verify(html, .structure) }
        #expect(e?.description == "not a JPEG, PNG, GIF or WebP image: the body looks like an HTML document")
        #expect(throws: ImageError.notAnImage(detected: "an HTML document")) { try thumbnail(html, longestSide: 10) }
    }

    @Test(arguments: [
        ("", "an empty body"),
        ("  <html lang=en>", "an HTML document"),
        ("<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>", "an SVG document"),
        ("{\"error\": \"forbidden\"}", "JSON"),
        ("Access denied.\n", "plain text"),
        ("%PDF-1.7\n", "a PDF document"),
    ])
    func nonImageBodiesAreDescribed(_ body: String, _ detected: String) {
        #expect(throws: ImageError.notAnImage(detected: detected)) { try verify(Array(body.utf8), .structure) }
    }

    @Test func binaryBodiesAreDescribed() {
        #expect(throws: ImageError.notAnImage(detected: "gzip-compressed data")) { try verify([0x1F, 0x8B, 8, 0, 0, 0], .header) }
        #expect(throws: ImageError.notAnImage(detected: "unrecognised binary data (starting 0x0 0xFE 0x3 0x4)")) {
            try verify([0, 0xFE, 3, 4, 5], .header)
        }
    }

    @Test func verifiesFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("prefetch-image-\(getpid())-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpeg = dir.appendingPathComponent("a")
        try Data(Fixture.bytes("progressive.jpg")).write(to: jpeg)
        #expect(try ImageVerifier.verify(fileAt: jpeg.path, level: .full, limits: ImageLimits(), expectImage: true)
            == ImageInfo(format: .jpeg, width: 64, height: 48))
        let empty = dir.appendingPathComponent("empty")
        try Data().write(to: empty)
        #expect(throws: ImageError.notAnImage(detected: "an empty body")) { try ImageVerifier.verify(fileAt: empty.path) }
        #expect(try ImageVerifier.verify(fileAt: empty.path, expectImage: false).format == .unknown)
        let missing = error { () throws(ImageError) in _ = try ImageVerifier.verify(fileAt: dir.appendingPathComponent("nope").path) }
        #expect(missing?.code == "unreadable_file")
        #expect(missing?.isContentError == false)
        #expect(try Thumbnailer.make(fileAt: jpeg.path, longestSide: 16).width == 16)
    }

    @Test func defaultLevelIsStructure() {
        #expect(VerificationLevel.default == .structure)
        #expect(VerificationLevel.none < .header && .header < .structure && .structure < .full)
        #expect(ImageLimits().maxPixels == 100_000_000)
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
