import Testing
@testable import PrefetchCore

@Suite struct NormalizedURLTests {
    @Test(arguments: [
        ("HTTP://Example.COM/Path/A.jpg", "http://example.com/Path/A.jpg"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("http://example.com:443/a", "http://example.com:443/a"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("http://example.com", "http://example.com/"),
        ("http://example.com?q=1", "http://example.com/?q=1"),
        ("http://example.com/a#frag", "http://example.com/a"),
        ("http://example.com/a?b=1&c=2#frag", "http://example.com/a?b=1&c=2"),
        ("http://[::1]:8080/a", "http://[::1]:8080/a"),
        ("http://[::1]:80/a", "http://[::1]/a"),
        ("http://user:secret@example.com/a", "http://example.com/a"),
        ("http://example.com/%7Euser", "http://example.com/%7Euser"),
    ])
    func normalizes(input: String, expected: String) throws {
        #expect(try NormalizedURL(parsing: input).string == expected)
    }

    @Test func credentialsAreKeptForTheRequestOnly() throws {
        let url = try NormalizedURL(parsing: "https://user:secret@Example.com/a")
        #expect(url.string == "https://example.com/a")
        #expect(!url.description.contains("secret"))
        #expect(url.requestString == "https://user:secret@example.com/a")
    }

    @Test func sameResourceSameKey() throws {
        let a = try NormalizedURL(parsing: "HTTPS://EXAMPLE.com:443/img.png#top")
        let b = try NormalizedURL(parsing: "https://example.com/img.png")
        #expect(a == b)
    }

    @Test(arguments: [
        ("", NormalizedURL.URLError.empty),
        ("http://exa mple.com/", .invalidCharacter),
        ("http://example.com/\t", .invalidCharacter),
        ("//example.com/a", .notAURL),
        ("mailto:someone@example.com", .notAURL),
        ("ws://example.com/", .schemeNotAllowed("ws")),
        ("http:///path", .missingHost),
        ("http://:80/path", .missingHost),
        ("http://example.com:0/", .invalidPort("0")),
        ("http://example.com:http/", .invalidPort("http")),
        ("http://[::1/", .invalidHost),
    ])
    func rejects(input: String, expected: NormalizedURL.URLError) {
        #expect(throws: expected) { try NormalizedURL(parsing: input) }
    }
}
