import CCrypto
import CHiredis
#if canImport(Glibc)
import Glibc
#endif

/// One blocking hiredis connection, owned by one thread at a time (not `Sendable`).
/// Commands are sent as argument vectors, so values never need quoting or escaping.
public final class RedisConnection {
    private let context: UnsafeMutablePointer<redisContext>
    public let url: RedisURL
    /// Scripts loaded on this connection, by body → SHA-1, so `EVAL` is sent as `EVALSHA`
    /// (Redis then neither receives nor hashes the body on every call).
    private var loadedScripts: [String: String] = [:]

    /// Connects, authenticates and selects the database.
    /// - Parameter timeout: applies to connecting and, afterwards, to every socket read and write.
    ///   Blocking commands must use a shorter server-side timeout (see NOTES: hiredis).
    public init(url: RedisURL, timeout: Double = 5) throws(RedisError) {
        self.url = url
        let tv = Self.timeval(seconds: timeout)
        let ctx: UnsafeMutablePointer<redisContext>?
        switch url.endpoint {
        case .tcp(let host, let port): ctx = redisConnectWithTimeout(host, Int32(port), tv)
        case .unix(let path): ctx = redisConnectUnixWithTimeout(path, tv)
        }
        guard let ctx else { throw .connection("cannot allocate a hiredis context") }
        if ctx.pointee.err != 0 {
            let message = Self.errorString(ctx)
            redisFree(ctx)
            throw .connection("\(url): \(message)")
        }
        context = ctx
        redisSetTimeout(ctx, tv)
        redisEnableKeepAlive(ctx)
        if let password = url.password {
            let args = url.user.map { ["AUTH", $0, password] } ?? ["AUTH", password]
            _ = try command(args).check()
        }
        if url.database != 0 {
            _ = try command(["SELECT", String(url.database)]).check()
        }
    }

    deinit {
        redisFree(context)
    }

    /// The socket, for `shutdown(2)` from another thread to wake a blocked command.
    public var fileDescriptor: Int32 { context.pointee.fd }

    /// Sends one command and waits for its reply. Error replies are returned, not thrown;
    /// use `.check()` to throw them.
    public func command(_ args: [String]) throws(RedisError) -> RedisReply {
        let args = try cachedScripts(args)
        let raw = Self.withArgv(args) { argc, argv, lens in redisCommandArgv(context, argc, argv, lens) }
        let reply = try take(raw)
        if case .error(let message) = reply, message.hasPrefix("NOSCRIPT"), args.first == "EVALSHA" {
            // Someone ran SCRIPT FLUSH: forget what we loaded and send the body again.
            loadedScripts.removeAll()
        }
        return reply
    }

    /// Sends all commands in one write and reads all replies: one round trip.
    public func pipeline(_ commands: [[String]]) throws(RedisError) -> [RedisReply] {
        var rewritten: [[String]] = []
        rewritten.reserveCapacity(commands.count)
        for args in commands { rewritten.append(try cachedScripts(args)) }
        for args in rewritten {
            let rc = Self.withArgv(args) { argc, argv, lens in redisAppendCommandArgv(context, argc, argv, lens) }
            if rc != REDIS_OK { throw .connection(Self.errorString(context)) }
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands { replies.append(try readReply()) }
        if replies.contains(where: { if case .error(let m) = $0 { return m.hasPrefix("NOSCRIPT") } else { return false } }) {
            loadedScripts.removeAll()
        }
        return replies
    }

    /// `EVAL body ...` becomes `EVALSHA sha ...`, loading the body once per connection.
    private func cachedScripts(_ args: [String]) throws(RedisError) -> [String] {
        guard args.count >= 2, args[0] == "EVAL" else { return args }
        let body = args[1]
        let sha: String
        if let known = loadedScripts[body] {
            sha = known
        } else {
            let loaded = Self.withArgv(["SCRIPT", "LOAD", body]) { argc, argv, lens in redisCommandArgv(context, argc, argv, lens) }
            guard let name = try take(loaded).check().string else { throw .unexpectedReply("SCRIPT LOAD returned no SHA-1") }
            loadedScripts[body] = name
            sha = name
        }
        var out = args
        out[0] = "EVALSHA"
        out[1] = sha
        return out
    }

    /// Reads the next reply without sending anything (pub/sub messages).
    public func readReply() throws(RedisError) -> RedisReply {
        var raw: UnsafeMutableRawPointer?
        if redisGetReply(context, &raw) != REDIS_OK {
            throw .connection(Self.errorString(context))
        }
        return try take(raw)
    }

    private func take(_ raw: UnsafeMutableRawPointer?) throws(RedisError) -> RedisReply {
        guard let raw else { throw .connection(Self.errorString(context)) }
        defer { freeReplyObject(raw) }
        return Self.convert(raw.assumingMemoryBound(to: redisReply.self))
    }

    private static func convert(_ r: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let reply = r.pointee
        switch reply.type {
        case REDIS_REPLY_STRING: return .string(text(reply))
        case REDIS_REPLY_STATUS: return .status(text(reply))
        case REDIS_REPLY_ERROR: return .error(text(reply))
        case REDIS_REPLY_INTEGER: return .integer(Int(reply.integer))
        case REDIS_REPLY_NIL: return .null
        case REDIS_REPLY_ARRAY:
            var items: [RedisReply] = []
            items.reserveCapacity(reply.elements)
            for i in 0..<reply.elements {
                if let e = reply.element[i] { items.append(convert(e)) } else { items.append(.null) }
            }
            return .array(items)
        default: return .null
        }
    }

    private static func text(_ reply: redisReply) -> String {
        guard let str = reply.str else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: str, count: reply.len), as: UTF8.self)
    }

    /// Lays the arguments out in one buffer and hands hiredis pointers and lengths.
    private static func withArgv<R>(
        _ args: [String],
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> R
    ) -> R {
        var bytes: [UInt8] = []
        var offsets: [Int] = []
        var lengths: [Int] = []
        offsets.reserveCapacity(args.count)
        lengths.reserveCapacity(args.count)
        for arg in args {
            offsets.append(bytes.count)
            bytes.append(contentsOf: arg.utf8)
            lengths.append(bytes.count - offsets.last!)
        }
        bytes.append(0) // keep the base pointer valid for empty arguments
        return bytes.withUnsafeBufferPointer { buf in
            let base = UnsafeRawPointer(buf.baseAddress!).assumingMemoryBound(to: CChar.self)
            var pointers: [UnsafePointer<CChar>?] = offsets.map { base + $0 }
            return pointers.withUnsafeMutableBufferPointer { ptrs in
                lengths.withUnsafeBufferPointer { lens in
                    body(Int32(args.count), ptrs.baseAddress!, lens.baseAddress!)
                }
            }
        }
    }

    private static func errorString(_ ctx: UnsafeMutablePointer<redisContext>) -> String {
        let message = withUnsafeBytes(of: ctx.pointee.errstr) { raw -> String in
            let bytes = raw.prefix(while: { $0 != 0 })
            return String(decoding: bytes, as: UTF8.self)
        }
        return message.isEmpty ? "connection closed (error \(ctx.pointee.err))" : message
    }

    private static func timeval(seconds: Double) -> Glibc.timeval {
        let whole = Int(seconds)
        return Glibc.timeval(tv_sec: whole, tv_usec: Int((seconds - Double(whole)) * 1_000_000))
    }
}
