import Testing
@testable import PrefetchImage

@Suite struct ImageFormatTests {
    @Test func sniffsFromBytesNotNames() {
        #expect(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]) == .jpeg)
        #expect(ImageFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(ImageFormat.sniff(Array("GIF89a....".utf8)) == .gif)
        #expect(ImageFormat.sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(ImageFormat.sniff(Array("<!doctype html>".utf8)) == .unknown)
        #expect(ImageFormat.sniff([UInt8]()) == .unknown)
    }

    @Test func garbageIsNotAJPEGHeader() {
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]
        #expect(throws: ImageError.self) { try bytes.withUnsafeBytes { try ImageHeader.read($0) } }
    }
}
