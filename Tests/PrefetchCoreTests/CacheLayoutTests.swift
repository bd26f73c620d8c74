import Testing
import PrefetchCore
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
        #expect(paths.metadata == paths.directory + "/" + hash + ".meta")
        #expect(paths.body(version: "abc") == paths.directory + "/" + hash + ".abc.body")
    }

    @Test func differentKeysDifferentPaths() {
        let layout = CacheLayout(root: "/c")
        #expect(layout.paths(forKey: "http://a/1").metadata != layout.paths(forKey: "http://a/2").metadata)
        #expect(layout.paths(forKey: "http://a/1") == layout.paths(forKey: "http://a/1"))
    }

    @Test func temporaryFilesAreHiddenAndBesideTheEntry() {
        let layout = CacheLayout(root: "/c")
        let entry = layout.paths(forKey: "k")
        let temp = layout.temporaryPath(for: entry, tag: "host-1-2")
        #expect(temp.hasPrefix(entry.directory + "/."))
        #expect(temp.hasSuffix(".tmp"))
    }

    @Test func fileKinds() {
        let h = String(repeating: "a", count: 64)
        #expect(CacheLayout.kind(ofFileNamed: h + ".meta") == .metadata(hash: h))
        #expect(CacheLayout.kind(ofFileNamed: h + ".5f3e.body") == .body(hash: h, version: "5f3e"))
        #expect(CacheLayout.kind(ofFileNamed: "." + h + ".host-1-2.tmp") == .temporary)
        #expect(CacheLayout.kind(ofFileNamed: "notes.txt") == .other)
        #expect(CacheLayout.kind(ofFileNamed: "short.meta") == .other)
    }

    @Test func keyPolicyDropsChosenQueryParameters() throws {
        let policy = CacheKeyPolicy(ignoredQueryParameters: ["sig", "v"])
        let url = try NormalizedURL(parsing: "https://A.example/img.jpg?w=200&sig=abc&v=3&h=100")
        #expect(policy.key(for: url) == "https://a.example/img.jpg?w=200&h=100")
        #expect(policy.key(for: try NormalizedURL(parsing: "https://a.example/x?sig=1")) == "https://a.example/x")
        #expect(CacheKeyPolicy().key(for: url) == url.string)
        let job = try JobParser.parse(#"{"url":"https://a.example/x?sig=1","key":"mine"}"#)
        #expect(policy.key(for: job) == "mine")
    }

    @Test func metadataRoundTrips() throws {
        let m = CacheMetadata(url: "http://a/\"q\"", key: "k", body: "x.1.body", size: 10, sha256: "ab", contentType: "image/png", etag: "\"e\"",
                              lastModified: "Mon, 01 Jan 2024 00:00:00 GMT", httpStatus: 200, format: "png", width: 3, height: 4,
                              storedAt: 1700000000.5, validatedAt: 1700000001)
        let decoded = try CacheMetadata.decode(Array(m.jsonString().utf8).withUnsafeBufferPointer { .init(buffer: $0) })
        #expect(decoded == m)
    }
}
