/// The JSON document published for every outcome (see docs/protocol.md, "Events").
public enum Event {
    public static func json(for outcome: Outcome, worker: String, time: Double) -> String {
        var w = JSONWriter()
        switch outcome.result {
        case .completed: w.field("event", "completed")
        case .failed: w.field("event", "failed")
        case .deadLettered: w.field("event", "dead")
        case .returnToQueue: w.field("event", "returned")
        case .started: w.field("event", "started")
        case .retrying: w.field("event", "retrying")
        case .skipped: w.field("event", "skipped")
        case .deferred: w.field("event", "deferred")
        case .expired: w.field("event", "expired")
        }
        if let job = outcome.job {
            w.field("url", job.url.string)
            w.field("key", outcome.key ?? job.cacheKey)
            w.field("id", job.id)
            w.field("attempt", job.attempt)
            if job.recovered > 0 { w.field("recovered", job.recovered) }
        }
        if outcome.coalesced { w.field("coalesced", true) }
        switch outcome.result {
        case .completed(let c):
            w.field("source", c.source.rawValue)
            w.field("status", c.httpStatus)
            w.field("bytes", c.bytes)
            w.field("content_type", c.contentType)
            w.field("path", c.path)
            w.field("format", c.format)
            if let width = c.width, let height = c.height, width > 0 {
                w.field("width", width)
                w.field("height", height)
            }
            if !c.thumbnails.isEmpty {
                let items = c.thumbnails.map { t -> String in
                    var v = JSONWriter()
                    v.field("size", t.size)
                    v.field("width", t.width)
                    v.field("height", t.height)
                    v.field("key", t.key)
                    v.field("path", t.path)
                    return v.finish()
                }
                w.rawField("thumbnails", "[" + items.joined(separator: ",") + "]")
            }
        case .failed(let f):
            w.field("kind", f.kind.rawValue)
            w.field("reason", f.reason)
            w.field("status", f.httpStatus)
            if outcome.exhausted { w.field("exhausted", true) }
        case .retrying(let f, let next, let delay):
            w.field("kind", f.kind.rawValue)
            w.field("reason", f.reason)
            w.field("status", f.httpStatus)
            w.field("next_attempt", next)
            w.field("retry_in_ms", Int((delay * 1000).rounded()))
        case .skipped(let reason):
            w.field("reason", reason)
        case .deferred(let delay):
            w.field("retry_in_ms", Int((delay * 1000).rounded()))
        case .deadLettered(let reason):
            w.field("reason", reason)
            w.field("job", JobParser.redacted(outcome.rawJob))
        case .returnToQueue, .started:
            w.field("queue", outcome.queue.name)
        case .expired:
            w.field("expires_at", outcome.job?.expiresAt)
        }
        w.field("duration_ms", Int((outcome.durationSeconds * 1000).rounded()))
        w.field("worker", worker)
        w.field("time", milliseconds(time))
        return w.finish()
    }

    /// Unix time rounded to the millisecond, as every record carries it.
    private static func milliseconds(_ time: Double) -> Double {
        (time * 1000).rounded() / 1000
    }

    /// The entry pushed onto the dead-letter list: the job as received and why it was refused.
    public static func deadLetterJSON(rawJob: String, reason: String, worker: String, time: Double) -> String {
        var w = JSONWriter()
        w.field("job", rawJob)
        w.field("reason", reason)
        w.field("worker", worker)
        w.field("time", milliseconds(time))
        return w.finish()
    }

    /// The value stored beside a failed URL in the failed-reasons hash.
    public static func failureRecordJSON(_ failure: Failure, attempts: Int, worker: String, time: Double) -> String {
        var w = JSONWriter()
        w.field("reason", failure.reason)
        w.field("status", failure.httpStatus)
        w.field("attempts", attempts)
        w.field("kind", failure.kind.rawValue)
        w.field("worker", worker)
        w.field("time", milliseconds(time))
        return w.finish()
    }
}
