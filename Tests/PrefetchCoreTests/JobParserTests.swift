import Testing
@testable import PrefetchCore

@Suite struct JobParserTests {
    @Test func bareURL() throws {
        let job = try JobParser.parse("https://example.com/a.jpg")
        #expect(job.url.string == "https://example.com/a.jpg")
        #expect(job.raw == "https://example.com/a.jpg")
        #expect(job.cacheKey == "https://example.com/a.jpg")
        #expect(job.priority == nil)
        #expect(!job.retryFailed && !job.refresh)
    }

    @Test func bareURLWithSurroundingWhitespaceKeepsRaw() throws {
        let job = try JobParser.parse("  http://example.com/x \n")
        #expect(job.url.string == "http://example.com/x")
        #expect(job.raw == "  http://example.com/x \n")
    }

    @Test func jsonWithAllFields() throws {
        let raw = #"{"url":"HTTPS://Example.com:443/a.png#x","id":"j-1","key":"logo","priority":"high","retry_failed":true,"refresh":true,"future":1}"#
        let job = try JobParser.parse(raw)
        #expect(job.url.string == "https://example.com/a.png")
        #expect(job.id == "j-1")
        #expect(job.customKey == "logo")
        #expect(job.cacheKey == "logo")
        #expect(job.priority == .high)
        #expect(job.retryFailed)
        #expect(job.refresh)
        #expect(job.raw == raw)
    }

    @Test func jsonWithOnlyURL() throws {
        let job = try JobParser.parse(#"{"url":"http://example.com/"}"#)
        #expect(job.url.string == "http://example.com/")
        #expect(job.id == nil && job.customKey == nil)
    }

    @Test(arguments: [
        ("", JobParseError.empty),
        ("   ", JobParseError.empty),
        ("not a url", JobParseError.invalidURL(.invalidCharacter)),
        ("example.com/a.jpg", JobParseError.invalidURL(.notAURL)),
        ("ftp://example.com/a.jpg", JobParseError.invalidURL(.schemeNotAllowed("ftp"))),
        ("file:///etc/passwd", JobParseError.invalidURL(.schemeNotAllowed("file"))),
        ("http://", JobParseError.invalidURL(.missingHost)),
        ("http://example.com:99999/", JobParseError.invalidURL(.invalidPort("99999"))),
        ("{", JobParseError.malformedJSON),
        ("{\"url\": }", JobParseError.malformedJSON),
        ("[\"http://example.com/\"]", JobParseError.notAnObject),
        ("\"http://example.com/\"", JobParseError.notAnObject),
        ("{}", JobParseError.missingField("url")),
        ("{\"id\":\"x\"}", JobParseError.missingField("url")),
        ("{\"url\":42}", JobParseError.wrongType(field: "url", expected: "a string")),
        ("{\"url\":\"gopher://x/\"}", JobParseError.invalidURL(.schemeNotAllowed("gopher"))),
        ("{\"url\":\"\"}", JobParseError.invalidURL(.empty)),
        ("{\"url\":\"http://a/\",\"priority\":\"urgent\"}", JobParseError.wrongType(field: "priority", expected: "one of high, normal, low")),
        ("{\"url\":\"http://a/\",\"refresh\":1}", JobParseError.wrongType(field: "refresh", expected: "true or false")),
        ("{\"url\":\"http://a/\",\"retry_failed\":\"yes\"}", JobParseError.wrongType(field: "retry_failed", expected: "true or false")),
        ("{\"url\":\"http://a/\",\"key\":\"\"}", JobParseError.wrongType(field: "key", expected: "a non-empty string")),
    ])
    func invalidJobs(raw: String, expected: JobParseError) {
        #expect(throws: expected) { try JobParser.parse(raw) }
    }

    @Test func reasonsAreReadable() {
        #expect(JobParseError.missingField("url").description == "JSON job has no \"url\" field")
        #expect(JobParseError.invalidURL(.schemeNotAllowed("ftp")).description.contains("only http and https"))
    }
}

@Suite struct JobHeaderTests {
    @Test func headersAndAuth() throws {
        let job = try JobParser.parse(#"{"url":"http://a/x","headers":{"X-Token":"t","Accept":"image/*"},"auth":{"username":"u","password":"p"}}"#)
        #expect(job.headers == ["X-Token": "t", "Accept": "image/*"])
        #expect(job.effectiveCredentials == Job.Credentials(username: "u", password: "p"))
    }

    @Test func credentialsFromTheURL() throws {
        let job = try JobParser.parse("http://us%40er:pa%3Ass@a/x")
        #expect(job.effectiveCredentials == Job.Credentials(username: "us@er", password: "pa:ss"))
    }

    @Test(arguments: [
        #"{"url":"http://a/","headers":{"X-A":"v\r\nInjected: 1"}}"#,
        #"{"url":"http://a/","headers":{"Bad Name":"v"}}"#,
        #"{"url":"http://a/","headers":["X-A: v"]}"#,
        #"{"url":"http://a/","headers":{"X-A":1}}"#,
        #"{"url":"http://a/","auth":"u:p"}"#,
    ])
    func rejectsUnsafeHeadersAndMalformedAuth(raw: String) {
        #expect(throws: JobParseError.self) { try JobParser.parse(raw) }
    }
}
