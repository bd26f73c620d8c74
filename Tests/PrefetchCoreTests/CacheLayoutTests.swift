import Testing
@testable import PrefetchCache

@Suite struct CacheLayoutTests {
    @Test func sha256KnownVectors() {
        #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func pathIsShardedByHashOfKey() {
        let layout = CacheLayout(root: "/var/cache/p/")
        let key = "https://example.com/a.jpg"
        let hash = SHA256.hex(key)
        let paths = layout.paths(forKey: key)
        #expect(paths.hash == hash)
        #expect(paths.directory == "/var/cache/p/v1/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))")
        #expect(paths.body == paths.directory + "/" + hash)
        #expect(paths.metadata == paths.body + ".meta")
    }

    @Test func differentKeysDifferentPaths() {
        let layout = CacheLayout(root: "/c")
        #expect(layout.paths(forKey: "http://a/1").body != layout.paths(forKey: "http://a/2").body)
        #expect(layout.paths(forKey: "http://a/1") == layout.paths(forKey: "http://a/1"))
    }

    @Test func temporaryFilesAreHiddenAndBesideTheEntry() {
        let layout = CacheLayout(root: "/c")
        let entry = layout.paths(forKey: "k")
        let temp = layout.temporaryPath(for: entry, tag: "host-1-2")
        #expect(temp.hasPrefix(entry.directory + "/."))
        #expect(temp.hasSuffix(".tmp"))
    }

    @Test func metadataRoundTrips() throws {
        let m = CacheMetadata(url: "http://a/\"q\"", key: "k", size: 10, contentType: "image/png", etag: "\"e\"",
                              lastModified: "Mon, 01 Jan 2024 00:00:00 GMT", httpStatus: 200, format: "png", storedAt: 1700000000.5)
        let decoded = try CacheMetadata.decode(Array(m.jsonString().utf8).withUnsafeBufferPointer { .init(buffer: $0) })
        #expect(decoded == m)
    }
}
