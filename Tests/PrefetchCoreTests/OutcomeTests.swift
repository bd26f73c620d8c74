import Foundation
import Testing
import PrefetchHTTP
@testable import PrefetchCore

@Suite struct OutcomeTests {
    @Test(arguments: [(404, Failure.Kind.permanent), (403, .permanent), (410, .permanent), (400, .permanent),
                      (408, .transient), (429, .transient), (500, .transient), (502, .transient), (503, .transient)])
    func httpStatusClassification(status: Int, kind: Failure.Kind) {
        let f = Failure.http(status: status)
        #expect(f.kind == kind)
        #expect(f.httpStatus == status)
    }

    @Test func jsonWriterEscapes() throws {
        var w = JSONWriter()
        w.field("s", "a\"b\\c\nd\u{1}é")
        w.field("n", 3)
        w.field("b", true)
        w.field("missing", nil as String?)
        let object = try JSONSerialization.jsonObject(with: Data(w.finish().utf8)) as? [String: Any]
        #expect(object?["s"] as? String == "a\"b\\c\nd\u{1}é")
        #expect(object?["n"] as? Int == 3)
        #expect(object?["missing"] == nil)
    }

    @Test func completedEventFields() throws {
        let job = try JobParser.parse(#"{"url":"http://u:p@a.com/x","id":"7"}"#)
        let outcome = Outcome(rawJob: job.raw, job: job, result: .completed(.init(
            source: .cache, path: "/c/v1/x", bytes: 5, httpStatus: 200, contentType: "image/png")), durationSeconds: 0.0125)
        let json = Event.json(for: outcome, worker: "w1", time: 1000.5)
        #expect(!json.contains("u:p"))
        let e = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(e["event"] as? String == "completed")
        #expect(e["source"] as? String == "cache")
        #expect(e["url"] as? String == "http://a.com/x")
        #expect(e["id"] as? String == "7")
        #expect(e["bytes"] as? Int == 5)
        #expect(e["path"] as? String == "/c/v1/x")
        #expect(e["worker"] as? String == "w1")
        #expect(e["duration_ms"] as? Int == 13)
    }

    @Test func failedEventFields() throws {
        let job = try JobParser.parse("http://a.com/missing")
        let outcome = Outcome(rawJob: job.raw, job: job, result: .failed(.http(status: 404)), durationSeconds: 0)
        let e = try #require(try JSONSerialization.jsonObject(with: Data(Event.json(for: outcome, worker: "w", time: 1).utf8)) as? [String: Any])
        #expect(e["event"] as? String == "failed")
        #expect(e["kind"] as? String == "permanent")
        #expect(e["reason"] as? String == "HTTP 404")
        #expect(e["status"] as? Int == 404)
    }

    @Test func keysUseThePrefix() {
        let k = RedisKeys(prefix: "warm")
        #expect(k.queue == "warm:queue")
        #expect(k.events == "warm:events")
        #expect(k.eventLog == "warm:events:log")
        #expect(k.failed == "warm:failed")
        #expect(k.dead == "warm:dead")
        #expect(RedisKeys().queue == "prefetch:queue")
        #expect(k.processing(worker: "w1") == "warm:processing:w1")
    }
}

@Suite struct TransferFailureClassificationTests {
    @Test func networkTroubleIsTransient() {
        // curl codes: 6 resolve host, 7 connect, 28 timeout, 52 got nothing, 56 recv error.
        for code in [6, 7, 28, 52, 56] {
            #expect(CurlError.failureKind(forCode: code) == .transient, "curl code \(code)")
        }
        // 1 unsupported protocol, 47 too many redirects, 60 peer certificate: permanent.
        for code in [1, 47, 60] {
            #expect(CurlError.failureKind(forCode: code) == .permanent, "curl code \(code)")
        }
    }
}
