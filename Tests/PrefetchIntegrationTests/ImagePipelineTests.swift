import Foundation
import PrefetchCache
import PrefetchCore
import PrefetchTestSupport
import Testing

/// Verification and thumbnails inside the worker, against a real origin.
@Suite struct ImagePipelineTests {
    static func fixture(_ name: String, file: String = #filePath) throws -> [UInt8] {
        let dir = URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PrefetchImageTests/Fixtures")
        return Array(try Data(contentsOf: dir.appendingPathComponent(name)))
    }

    @Test func validImageRecordsFormatAndDimensions() throws {
        let h = try WorkerHarness("img-ok")
        defer { h.stop() }
        let url = try h.env.serve(try Self.fixture("progressive.jpg"), as: "\(h.keys.prefix)/p.jpg")
        try h.push(url)
        h.start()
        let e = try h.waitForEvents(1)[0]
        #expect(e["event"] as? String == "completed")
        #expect(e["format"] as? String == "jpeg")
        #expect(e["width"] as? Int == 64 && e["height"] as? Int == 48)
        let meta = try #require(try CacheReader(root: h.cacheDirectory).entry(forURL: url)).metadata
        #expect(meta.format == "jpeg" && meta.width == 64 && meta.height == 48)
    }

    @Test(arguments: ["structure", "full"])
    func truncatedJPEGIsRefusedAndMarkedFailed(level: String) throws {
        let h = try WorkerHarness("img-trunc-\(level)")
        defer { h.stop() }
        let whole = try Self.fixture("baseline.jpg")
        let url = try h.env.serve(Array(whole.prefix(whole.count * 2 / 3)), as: "\(h.keys.prefix)/t.jpg")
        try h.push(#"{"url":"\#(url)","verify":"\#(level)"}"#)
        h.start()
        let e = try h.waitForEvents(1)[0]
        #expect(e["event"] as? String == "failed")
        #expect(e["kind"] as? String == "permanent")
        let reason = (e["reason"] as? String) ?? ""
        #expect(reason.contains("verification failed"), "\(reason)")
        #expect(try h.redis.strings("SMEMBERS", h.keys.failed) == [url])
        #expect(h.cacheBodies().isEmpty)
    }

    @Test func htmlIsRefusedOnlyWhenAnImageIsExpected() throws {
        let h = try WorkerHarness("img-html")
        defer { h.stop() }
        let html = Array("<!doctype html><html><body>Error 500: try later</body></html>".utf8)
        let url = try h.env.serve(html, as: "\(h.keys.prefix)/error.jpg") // served as image/jpeg
        h.start()
        try h.push(#"{"url":"\#(url)","expect_image":true}"#)
        let refused = try h.waitForEvents(1)[0]
        #expect(refused["event"] as? String == "failed")
        #expect(((refused["reason"] as? String) ?? "").contains("looks like an HTML document"))

        try h.push(#"{"url":"\#(url)","retry_failed":true}"#)
        let stored = try h.waitForEvents(2)[1]
        #expect(stored["event"] as? String == "completed")
        #expect(stored["format"] as? String == "unknown")

        // Cached, but never held to an image expectation: not served to a job that has one.
        try h.push(#"{"url":"\#(url)","expect_image":true}"#)
        let strict = try h.waitForEvents(3)[2]
        #expect(strict["event"] as? String == "failed")
        #expect(strict["source"] == nil)
    }

    @Test func pixelBombIsRefusedFromItsHeader() throws {
        let h = try WorkerHarness("img-bomb")
        defer { h.stop() }
        // A valid PNG signature and IHDR declaring 50,000 × 50,000 pixels, nothing more.
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        let ihdr: [UInt8] = Array("IHDR".utf8) + [0, 0, 0xC3, 0x50, 0, 0, 0xC3, 0x50, 8, 6, 0, 0, 0]
        png += ihdr + crc32(ihdr)
        let url = try h.env.serve(png, as: "\(h.keys.prefix)/bomb.png")
        try h.push(url)
        h.start()
        let e = try h.waitForEvents(1)[0]
        #expect(e["event"] as? String == "failed")
        #expect(((e["reason"] as? String) ?? "").contains("pixels"))
    }

    @Test func thumbnailsAreStoredAsTheirOwnEntriesAndNotRedone() throws {
        let h = try WorkerHarness("img-thumbs")
        defer { h.stop() }
        let jpeg = try h.env.serve(try Self.fixture("baseline.jpg"), as: "\(h.keys.prefix)/b.jpg")
        let png = try h.env.serve(try Self.fixture("rgba.png"), as: "\(h.keys.prefix)/a.png")
        h.start()
        try h.push(#"{"url":"\#(jpeg)","thumbnails":[32,16]}"#, #"{"url":"\#(png)","thumbnails":[24]}"#)
        let events = try h.waitForEvents(2)
        let reader = CacheReader(root: h.cacheDirectory)
        for (url, sides, format) in [(jpeg, [16, 32], "jpeg"), (png, [24], "png")] {
            let e = try #require(events.first { $0["url"] as? String == url })
            let thumbs = try #require(e["thumbnails"] as? [[String: Any]])
            #expect(thumbs.compactMap { $0["size"] as? Int } == sides)
            for side in sides {
                let entry = try #require(reader.thumbnail(forKey: url, longestSide: side))
                #expect(entry.metadata.format == format)
                #expect(max(entry.metadata.width ?? 0, entry.metadata.height ?? 0) == side)
                // 64 × 48 keeps its 4:3 shape.
                #expect(abs(Double(entry.metadata.width ?? 0) / Double(entry.metadata.height ?? 1) - 4.0 / 3.0) < 0.15)
            }
        }
        let before = try #require(reader.thumbnail(forKey: jpeg, longestSide: 16)).bodyPath
        try h.push(#"{"url":"\#(jpeg)","thumbnails":[16]}"#)
        let again = try h.waitForEvents(3)[2]
        #expect(again["source"] as? String == "cache")
        #expect((again["thumbnails"] as? [[String: Any]])?.first?["path"] as? String == before)
        #expect(try #require(reader.thumbnail(forKey: jpeg, longestSide: 16)).bodyPath == before)
    }
}

private func crc32(_ bytes: [UInt8]) -> [UInt8] {
    var crc: UInt32 = 0xFFFF_FFFF
    for b in bytes {
        crc ^= UInt32(b)
        for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    crc ^= 0xFFFF_FFFF
    return [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
}
