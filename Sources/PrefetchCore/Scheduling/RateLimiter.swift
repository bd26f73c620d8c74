/// A token bucket: at most `rate` starts per second on average, bursts up to `burst`.
/// Pure: the caller passes the time, so tests need no clock.
public struct RateLimiter: Sendable {
    public let rate: Double
    public let burst: Double
    private var tokens: Double
    private var last: Double?

    /// - Parameter rate: starts per second; 0 or less means unlimited.
    public init(rate: Double, burst: Double? = nil) {
        self.rate = rate
        self.burst = max(1, burst ?? rate)
        tokens = self.burst
    }

    public var isUnlimited: Bool { rate <= 0 }

    /// Takes a token if one is available at `now` (seconds, any monotonic origin).
    public mutating func tryTake(now: Double) -> Bool {
        guard !isUnlimited else { return true }
        refill(now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Seconds until a token will be available (0 if one is).
    public mutating func delay(now: Double) -> Double {
        guard !isUnlimited else { return 0 }
        refill(now)
        return tokens >= 1 ? 0 : (1 - tokens) / rate
    }

    private mutating func refill(_ now: Double) {
        if let last { tokens = min(burst, tokens + (now - last) * rate) }
        last = now
    }
}
