/// How much checking `ImageVerifier` does. Each level includes the ones before it.
public enum VerificationLevel: String, Sendable, CaseIterable {
    /// No checks: the format is sniffed and recorded, nothing is refused.
    case none
    /// Format and dimensions from the header; the pixel limit.
    case header
    /// The whole file's layout, without decoding pixels: JPEG markers, segment lengths and
    /// scan data up to EOI; PNG chunks with their CRCs up to IEND. Cheap; the default.
    case structure
    /// A complete decode with libjpeg or libpng; any library warning counts as corruption.
    case full

    public static let `default`: VerificationLevel = .structure
}

public struct ImageLimits: Sendable, Equatable {
    /// Largest width x height accepted, checked from the header before anything is decoded.
    public var maxPixels: Int

    public init(maxPixels: Int = 100_000_000) {
        self.maxPixels = maxPixels
    }
}

/// What verification found: the format and, for JPEG and PNG, the dimensions (0 × 0 for
/// formats that are not verified, GIF, WebP, unknown, and at level `none`). The same shape as
/// a header read, so it is the same type.
public typealias ImageInfo = ImageHeader

/// Checks that downloaded bytes are the image they claim to be. The format is sniffed from
/// the bytes, never from the URL or the Content-Type. JPEG and PNG are verified; GIF and WebP
/// are accepted as they are, with their format recorded.
///
/// Thread-safe: no shared state. Verification runs on the calling thread and blocks it
/// (`full` decodes a whole image): call it from a dedicated thread or an
/// `ImageProcessingPool`, never from a Swift task.
public enum ImageVerifier {
    /// Verifies an image held in memory.
    /// - Parameters:
    ///   - level: how much to check (`.structure` by default). At `.none` nothing is refused.
    ///   - limits: the pixel limit, checked from the header before any decoding.
    ///   - expectImage: when true, a body that is not JPEG, PNG, GIF or WebP fails with
    ///     `ImageError.notAnImage`; when false it is returned as `.unknown`.
    /// - Returns: the format and, for JPEG and PNG, the dimensions (0 x 0 otherwise).
    public static func verify(_ bytes: UnsafeRawBufferPointer, level: VerificationLevel = .default,
                              limits: ImageLimits = ImageLimits(), expectImage: Bool = true) throws(ImageError) -> ImageInfo {
        let format = ImageFormat.sniff(bytes)
        guard level != .none else { return ImageInfo(format: format, width: 0, height: 0) }
        switch format {
        case .jpeg:
            let header = try JPEGCodec.readHeader(bytes)
            try limits.check(header)
            if level >= .structure {
                let summary = try JPEGStructure.walk(bytes)
                guard summary.width == header.width, summary.height == header.height else {
                    throw .corrupt(.jpeg, detail: "frame header disagrees with the decoder's dimensions")
                }
            }
            if level >= .full { try JPEGCodec.verify(bytes, limits: limits) }
            return header
        case .png:
            let ihdr = try PNGStructure.readHeader(bytes)
            let header = ImageHeader(format: .png, width: ihdr.width, height: ihdr.height)
            try limits.check(header)
            if level >= .structure { try PNGStructure.walk(bytes) }
            if level >= .full { try PNGCodec.verify(bytes, limits: limits) }
            return header
        case .gif, .webp, .unknown:
            if expectImage && !format.isImage { throw .notAnImage(detected: BodyDescription.describe(bytes)) }
            return ImageInfo(format: format, width: 0, height: 0)
        }
    }

    /// Verifies a file, mapped into memory (read-only, private) for the duration of the call.
    /// The file must not shrink meanwhile (the cache only renames finished files into place).
    public static func verify(fileAt path: String, level: VerificationLevel = .default,
                              limits: ImageLimits = ImageLimits(), expectImage: Bool = true) throws(ImageError) -> ImageInfo {
        try MappedFile.withBytes(path: path) { bytes throws(ImageError) in
            try verify(bytes, level: level, limits: limits, expectImage: expectImage)
        }
    }
}

extension VerificationLevel: Comparable {
    private var rank: Int {
        switch self {
        case .none: 0
        case .header: 1
        case .structure: 2
        case .full: 3
        }
    }

    public static func < (a: VerificationLevel, b: VerificationLevel) -> Bool { a.rank < b.rank }
}
