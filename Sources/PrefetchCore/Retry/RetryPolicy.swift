/// What happens after a failure: try again later, or stop. Pure; the caller supplies the
/// random number so tests are deterministic.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included. Default: 5.
    public var maxAttempts = 5
    /// Delay before the second attempt, doubled for each later one. Default: 1 s.
    public var baseDelay = 1.0
    /// Longest backoff delay. Default: 300 s.
    public var maxDelay = 300.0
    /// Longest `Retry-After` honoured; origins asking for more get this. Default: 3600 s.
    public var maxRetryAfter = 3600.0

    public init() {}

    public enum Decision: Sendable, Equatable {
        /// Re-queue as attempt `attempt` after `delay` seconds.
        case retry(attempt: Int, delay: Double)
        /// Transient, but the attempts are used up.
        case exhausted
        /// Permanent: retrying will not help.
        case permanent
    }

    /// - Parameters:
    ///   - attempt: the attempt that just failed (1 for the first).
    ///   - random: a number in 0..<1 for jitter.
    public func decide(_ failure: Failure, attempt: Int, random: Double) -> Decision {
        guard failure.kind == .transient else { return .permanent }
        guard attempt < maxAttempts else { return .exhausted }
        // Exponential backoff with jitter in [50%, 100%] of the step, so a fleet that failed
        // together does not retry together.
        let step = min(maxDelay, baseDelay * Double(1 << min(attempt - 1, 30)))
        var delay = step * (0.5 + 0.5 * random)
        if let asked = failure.retryAfter {
            delay = max(delay, min(asked, maxRetryAfter))
        }
        return .retry(attempt: attempt + 1, delay: delay)
    }
}
