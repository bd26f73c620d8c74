import Foundation

/// Turns the strings users push onto the queue into jobs.
///
/// A job is either a bare URL (`https://example.com/a.jpg`) or a JSON object with a
/// `url` field and optional fields (see docs/protocol.md). Anything else is rejected
/// with a reason that goes to the dead-letter list.
public enum JobParser {
    public static func parse(_ raw: String) throws(JobParseError) -> Job {
        let text = trimmed(raw)
        guard !text.isEmpty else { throw .empty }
        guard text.hasPrefix("{") || text.hasPrefix("[") || text.hasPrefix("\"") else {
            return Job(raw: raw, url: try url(text))
        }
        return try parseJSON(text, raw: raw)
    }

    /// Leading and trailing ASCII whitespace removed (cheaper than Foundation's trimming,
    /// and the common case, no whitespace, costs no copy).
    public static func trimmed(_ s: String) -> String {
        let utf8 = s.utf8
        let isSpace = { (b: UInt8) in b == 0x20 || (0x09...0x0D).contains(b) }
        guard let first = utf8.first, let last = utf8.last, isSpace(first) || isSpace(last) else { return s }
        guard let start = utf8.firstIndex(where: { !isSpace($0) }) else { return "" }
        let end = utf8.lastIndex(where: { !isSpace($0) })!
        return String(s[start...end])
    }

    private static func url(_ text: String) throws(JobParseError) -> NormalizedURL {
        do {
            return try NormalizedURL(parsing: text)
        } catch {
            throw .invalidURL(error)
        }
    }

    private static func parseJSON(_ text: String, raw: String) throws(JobParseError) -> Job {
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        } catch {
            throw .malformedJSON
        }
        guard let object = value as? [String: Any] else { throw .notAnObject }
        guard let urlValue = object["url"] else { throw .missingField("url") }
        guard let urlText = urlValue as? String else { throw .wrongType(field: "url", expected: "a string") }

        let id = try optionalString(object, "id")
        let key = try optionalString(object, "key")
        if let key, key.isEmpty { throw .wrongType(field: "key", expected: "a non-empty string") }

        var priority: Job.Priority?
        if let p = object["priority"] {
            guard let name = p as? String, let parsed = Job.Priority(name: name) else {
                throw .wrongType(field: "priority", expected: "one of high, normal, low")
            }
            priority = parsed
        }
        return Job(
            raw: raw, url: try url(trimmed(urlText)), id: id, customKey: key,
            priority: priority, headers: try headers(object), credentials: try credentials(object),
            retryFailed: try optionalBool(object, "retry_failed"),
            refresh: try optionalBool(object, "refresh"),
            attempt: try count(object, "attempt", minimum: 1) ?? 1,
            recovered: try count(object, "recovered", minimum: 0) ?? 0,
            verification: try verification(object),
            expectImage: object["expect_image"] == nil || object["expect_image"] is NSNull ? nil : try optionalBool(object, "expect_image"),
            thumbnails: try thumbnails(object),
            expiresAt: try expiry(object)
        )
    }

    private static func expiry(_ object: [String: Any]) throws(JobParseError) -> Double? {
        guard let value = object["expires_at"], !(value is NSNull) else { return nil }
        guard let n = value as? NSNumber, !isBoolean(n), n.doubleValue.isFinite, n.doubleValue > 0 else {
            throw .wrongType(field: "expires_at", expected: "a Unix time in seconds")
        }
        return n.doubleValue
    }

    private static func verification(_ object: [String: Any]) throws(JobParseError) -> String? {
        guard let level = try optionalString(object, "verify") else { return nil }
        guard Job.verificationLevels.contains(level) else {
            throw .wrongType(field: "verify", expected: "one of none, header, structure, full")
        }
        return level
    }

    private static func thumbnails(_ object: [String: Any]) throws(JobParseError) -> [Int]? {
        guard let value = object["thumbnails"], !(value is NSNull) else { return nil }
        let expected = "a list of up to \(Job.maxThumbnails) sizes from 1 to \(Job.maxThumbnailSide)"
        guard let list = value as? [Any], list.count <= Job.maxThumbnails else { throw .wrongType(field: "thumbnails", expected: expected) }
        var sizes: [Int] = []
        for item in list {
            guard let n = item as? NSNumber, !isBoolean(n), let side = Int(exactly: n.doubleValue),
                  (1...Job.maxThumbnailSide).contains(side) else { throw .wrongType(field: "thumbnails", expected: expected) }
            if !sizes.contains(side) { sizes.append(side) }
        }
        return sizes
    }

    private static func count(_ object: [String: Any], _ field: String, minimum: Int) throws(JobParseError) -> Int? {
        guard let value = object[field], !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, !isBoolean(number), let n = Int(exactly: number.doubleValue), n >= minimum else {
            throw .wrongType(field: field, expected: "a whole number ≥ \(minimum)")
        }
        return n
    }

    /// The job as published in a `dead` event: `auth` and `headers` removed and URL
    /// credentials masked, since events reach every subscriber. (The dead-letter list keeps
    /// the job exactly as pushed, for fixing and pushing again.)
    public static func redacted(_ raw: String) -> String {
        var text = trimmed(raw)
        if text.hasPrefix("{"), let data = text.data(using: .utf8),
           var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] {
            if object["auth"] != nil { object["auth"] = "(redacted)" }
            if object["headers"] != nil { object["headers"] = "(redacted)" }
            if let url = object["url"] as? String { object["url"] = maskCredentials(url) }
            if let out = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                return String(decoding: out, as: UTF8.self)
            }
            return "(a JSON job that could not be redacted)"
        }
        text = maskCredentials(text)
        return text
    }

    /// `scheme://user:pass@host/...` → `scheme://***@host/...`.
    static func maskCredentials(_ url: String) -> String {
        guard let sep = url.range(of: "://") else { return url }
        let rest = url[sep.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<sep.upperBound]) + "***" + String(rest[at...])
    }

    /// The job as it is re-queued for attempt `n`: a JSON object with `"attempt": n`
    /// (a bare URL becomes `{"url": ..., "attempt": n}`); every other field is kept.
    public static func raw(_ job: Job, forAttempt n: Int) -> String {
        let text = job.raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("{"), let data = text.data(using: .utf8),
           var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] {
            object["attempt"] = n
            if let out = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                return String(decoding: out, as: UTF8.self)
            }
        }
        var w = JSONWriter()
        w.field("url", text)
        w.field("attempt", n)
        return w.finish()
    }

    /// Header names must be HTTP tokens and values must not contain CR or LF, so a job
    /// can never inject extra header lines.
    private static func headers(_ object: [String: Any]) throws(JobParseError) -> [String: String] {
        guard let value = object["headers"], !(value is NSNull) else { return [:] }
        guard let dict = value as? [String: Any] else { throw .wrongType(field: "headers", expected: "an object of strings") }
        var out: [String: String] = [:]
        for (name, v) in dict {
            guard let text = v as? String else { throw .wrongType(field: "headers", expected: "an object of strings") }
            guard !name.isEmpty, name.unicodeScalars.allSatisfy({ tokenCharacters.contains($0) }) else {
                // The name is not echoed: a mistyped header may carry a secret.
                throw .invalidHeader("a header name is not a valid HTTP token")
            }
            guard !text.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw .invalidHeader("header '\(name)' has a line break in its value")
            }
            out[name] = text
        }
        return out
    }

    private static let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".unicodeScalars)

    private static func credentials(_ object: [String: Any]) throws(JobParseError) -> Job.Credentials? {
        guard let value = object["auth"], !(value is NSNull) else { return nil }
        guard let dict = value as? [String: Any], let user = dict["username"] as? String else {
            throw .wrongType(field: "auth", expected: "an object with \"username\" and \"password\"")
        }
        guard let password = (dict["password"] ?? "") as? String else {
            throw .wrongType(field: "auth", expected: "an object with \"username\" and \"password\"")
        }
        return Job.Credentials(username: user, password: password)
    }

    private static func optionalString(_ object: [String: Any], _ field: String) throws(JobParseError) -> String? {
        guard let value = object[field], !(value is NSNull) else { return nil }
        guard let s = value as? String else { throw .wrongType(field: field, expected: "a string") }
        return s
    }

    private static func optionalBool(_ object: [String: Any], _ field: String) throws(JobParseError) -> Bool {
        guard let value = object[field], !(value is NSNull) else { return false }
        // JSONSerialization decodes JSON booleans as NSNumber; reject 0/1 so a typo is caught.
        guard let number = value as? NSNumber, isBoolean(number) else {
            throw .wrongType(field: field, expected: "true or false")
        }
        return number.boolValue
    }

    private static func isBoolean(_ number: NSNumber) -> Bool {
        // On Linux a JSON boolean arrives as an NSNumber whose objCType is "c".
        String(cString: number.objCType) == "c"
    }
}

/// Why a queued string is not a job. The description is stored in the dead-letter entry.
public enum JobParseError: Error, Equatable, CustomStringConvertible, Sendable {
    case empty
    case malformedJSON
    case notAnObject
    case missingField(String)
    case wrongType(field: String, expected: String)
    case invalidURL(NormalizedURL.URLError)
    case invalidHeader(String)

    public var description: String {
        switch self {
        case .empty: "empty job"
        case .malformedJSON: "job looks like JSON but does not parse"
        case .notAnObject: "JSON job must be an object with a \"url\" field"
        case .missingField(let f): "JSON job has no \"\(f)\" field"
        case .wrongType(let f, let expected): "field \"\(f)\" must be \(expected)"
        case .invalidURL(let e): e.description
        case .invalidHeader(let m): m
        }
    }
}
