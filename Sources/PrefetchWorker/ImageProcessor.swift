import Foundation
import PrefetchCache
import PrefetchCore
import PrefetchImage

/// Verification and thumbnails for the worker. Cheap checks (up to `structure`, which
/// decodes no pixels) run where they are asked for; full decodes and thumbnails run on a
/// bounded pool sized to the machine, which also bounds the pixel memory in flight.
public final class ImageProcessor: Sendable {
    public struct Settings: Sendable {
        /// Default: `.structure`.
        public var verification = VerificationLevel.structure
        /// Default: false (non-images are stored with their sniffed type).
        public var expectImage = false
        /// Largest width × height accepted, from the header, before any decode. Default: 50 M.
        public var maxPixels = 50_000_000
        /// Thumbnails made for every job that does not say otherwise. Default: none.
        public var thumbnails: [Int] = []
        /// JPEG quality of thumbnails, 1...100. Default: 85.
        public var jpegQuality = Thumbnailer.defaultJPEGQuality
        /// Threads decoding at once. Default: the number of cores.
        public var threads = ProcessInfo.processInfo.activeProcessorCount

        public init() {}
    }

    /// What one stored body needs, merged over every job that shares it.
    struct Plan: Sendable {
        var level: VerificationLevel
        var expectImage: Bool
        var thumbnails: [Int]

        var needsPool: Bool { level == .full || !thumbnails.isEmpty }
    }

    let settings: Settings
    private let cache: DiskCache
    private let pool: ImageProcessingPool

    init(settings: Settings, cache: DiskCache) {
        self.settings = settings
        self.cache = cache
        pool = ImageProcessingPool(threads: max(1, settings.threads), name: "prefetchd-image")
    }

    var limits: ImageLimits { ImageLimits(maxPixels: settings.maxPixels) }

    func plan(for jobs: [PendingJob]) -> Plan {
        var plan = Plan(level: .none, expectImage: false, thumbnails: [])
        for pending in jobs {
            let job = pending.job
            let level = job.verification.flatMap(VerificationLevel.init(rawValue:)) ?? settings.verification
            if level > plan.level { plan.level = level }
            if job.expectImage ?? settings.expectImage { plan.expectImage = true }
            for side in job.thumbnails ?? settings.thumbnails where !plan.thumbnails.contains(side) {
                plan.thumbnails.append(side)
            }
        }
        return plan
    }

    /// Runs `work` on the pool when the plan needs decoding, else right here.
    func run(_ plan: Plan, _ work: @escaping @Sendable () -> Void) {
        if plan.needsPool, pool.submit(work) { return }
        work()
    }

    /// Verifies the body from memory when the downloader kept it, else from its file.
    func verify(fileAt path: String, body: [UInt8]?, _ plan: Plan) throws(ImageError) -> ImageInfo {
        if let body {
            let result: Result<ImageInfo, ImageError> = body.withUnsafeBytes { bytes in
                do throws(ImageError) {
                    return .success(try ImageVerifier.verify(bytes, level: plan.level, limits: limits, expectImage: plan.expectImage))
                } catch {
                    return .failure(error)
                }
            }
            return try result.get()
        }
        return try ImageVerifier.verify(fileAt: path, level: plan.level, limits: limits, expectImage: plan.expectImage)
    }

    /// Makes the thumbnails the plan asks for that are not already cached for this very
    /// original (same SHA-256). Failures are logged and skipped: the original stays valid.
    func thumbnails(of original: CacheEntry, _ plan: Plan) -> [Outcome.Variant] {
        guard !plan.thumbnails.isEmpty,
              original.metadata.format.flatMap(ImageFormat.init(rawValue:))?.isVerifiable == true else { return [] }
        var variants: [Outcome.Variant] = []
        for side in plan.thumbnails.sorted() {
            let key = CacheKeyPolicy.thumbnailKey(forKey: original.metadata.key, longestSide: side)
            if let existing = cache.lookup(key: key), existing.metadata.sourceSHA256 == original.metadata.sha256 {
                variants.append(Outcome.Variant(size: side, key: key, path: existing.bodyPath,
                                                width: existing.metadata.width ?? 0, height: existing.metadata.height ?? 0))
                continue
            }
            do {
                let thumb = try Thumbnailer.make(fileAt: original.bodyPath, longestSide: side,
                                                 jpegQuality: settings.jpegQuality, limits: limits)
                let entry = try store(thumb, key: key, original: original)
                variants.append(Outcome.Variant(size: side, key: key, path: entry.bodyPath, width: thumb.width, height: thumb.height))
            } catch {
                Log.warning("thumbnail \(side) of \(original.metadata.url): \(error)")
            }
        }
        return variants
    }

    private func store(_ thumb: Thumbnail, key: String, original: CacheEntry) throws -> CacheEntry {
        let temp = try cache.createTemporaryFile(forKey: key)
        let written = thumb.data.withUnsafeBytes { write(temp.fd, $0.baseAddress, $0.count) }
        close(temp.fd)
        guard written == thumb.data.count else {
            cache.discard(temporaryPath: temp.path)
            throw CacheError(operation: "write", path: temp.path, code: EIO)
        }
        let now = Date().timeIntervalSince1970
        var metadata = CacheMetadata(
            url: original.metadata.url, key: key, size: thumb.data.count,
            sha256: thumb.data.withUnsafeBytes { SHA256.hex($0) },
            contentType: thumb.format == .png ? "image/png" : "image/jpeg", format: thumb.format.rawValue,
            width: thumb.width, height: thumb.height, storedAt: now, validatedAt: now)
        metadata.sourceSHA256 = original.metadata.sha256
        do {
            return try cache.commit(temporaryPath: temp.path, key: key, metadata: metadata)
        } catch {
            cache.discard(temporaryPath: temp.path)
            throw error
        }
    }

    func shutdown() {
        pool.shutdown()
    }
}
