import Testing
@testable import PrefetchCore

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy()

    @Test func permanentFailuresAreNeverRetried() {
        #expect(policy.decide(.http(status: 404), attempt: 1, random: 0.5) == .permanent)
        #expect(policy.decide(Failure(kind: .permanent, reason: "too big"), attempt: 1, random: 0) == .permanent)
    }

    @Test func backoffDoublesWithJitterBetweenHalfAndWholeStep() {
        for attempt in 1...4 {
            let step = 1.0 * Double(1 << (attempt - 1))
            #expect(policy.decide(.http(status: 500), attempt: attempt, random: 0) == .retry(attempt: attempt + 1, delay: step * 0.5))
            #expect(policy.decide(.http(status: 500), attempt: attempt, random: 0.999_999) == .retry(attempt: attempt + 1, delay: step * (0.5 + 0.5 * 0.999_999)))
        }
    }

    @Test func attemptsRunOut() {
        #expect(policy.decide(.http(status: 503), attempt: 5, random: 0.5) == .exhausted)
        var one = RetryPolicy()
        one.maxAttempts = 1
        #expect(one.decide(.http(status: 503), attempt: 1, random: 0.5) == .exhausted)
    }

    @Test func delayIsCappedButRetryAfterWins() {
        var p = RetryPolicy()
        p.maxDelay = 10
        p.maxAttempts = 50
        #expect(p.decide(.http(status: 500), attempt: 20, random: 1) == .retry(attempt: 21, delay: 10))
        // Retry-After only counts on 429 and 503, and only when longer than the backoff.
        #expect(p.decide(.http(status: 503, retryAfter: 30), attempt: 1, random: 0) == .retry(attempt: 2, delay: 30))
        #expect(p.decide(.http(status: 429, retryAfter: 0.1), attempt: 3, random: 0) == .retry(attempt: 4, delay: 2))
        #expect(p.decide(.http(status: 500, retryAfter: 30), attempt: 1, random: 0) == .retry(attempt: 2, delay: 0.5))
        #expect(p.decide(.http(status: 503, retryAfter: 99_999), attempt: 1, random: 0) == .retry(attempt: 2, delay: 3600))
    }

    @Test func reQueuedJobsCarryTheirAttemptAndKeepTheirFields() throws {
        let bare = try JobParser.parse("http://a.example/x")
        #expect(JobParser.raw(bare, forAttempt: 2) == #"{"url":"http://a.example/x","attempt":2}"#)
        let json = try JobParser.parse(#"{"url":"http://a.example/y","id":"7","thumbnails":[]}"#)
        let again = try JobParser.parse(JobParser.raw(json, forAttempt: 3))
        #expect(again.attempt == 3 && again.id == "7" && again.thumbnails == [])
    }

    @Test func deadEventsHideCredentials() {
        #expect(JobParser.redacted("http://user:pw@a.example/x") == "http://***@a.example/x")
        let redacted = JobParser.redacted(#"{"url":"http://u:p@a/x","auth":{"username":"u","password":"p"},"headers":{"X":"t"}}"#)
        #expect(!redacted.contains("\"p\"") && !redacted.contains("u:p@") && redacted.contains("(redacted)"))
    }
}
