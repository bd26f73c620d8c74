import CImageProbe

/// Why an image was refused. The C layer's statuses become these in one place,
/// `ImageError.check(_:_:limits:encoding:)`, for both libjpeg and libpng.
public enum ImageError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The body is not JPEG, PNG, GIF or WebP; `detected` says what it looks like
    /// ("an HTML document", "plain text", "an empty body").
    case notAnImage(detected: String)
    /// The operation is not available for this format (thumbnails of GIF or WebP, say).
    case unsupportedFormat(ImageFormat)
    /// The data stops before the image does (an interrupted download).
    case truncated(ImageFormat, detail: String)
    /// The data is damaged: bad markers or chunk lengths, CRC mismatches, undecodable data.
    case corrupt(ImageFormat, detail: String)
    /// The header declares more pixels than allowed. Found before any pixel memory is taken.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// A valid image this code cannot process (an unusual JPEG colour space, say).
    case unsupportedContent(ImageFormat, detail: String)
    /// Encoding a thumbnail failed.
    case encodingFailed(ImageFormat, detail: String)
    case outOfMemory
    /// The file to verify could not be opened or mapped.
    case unreadableFile(path: String, reason: String)
    /// A parameter is out of range (a thumbnail size of 0, a JPEG quality of 120).
    case invalidArgument(String)

    public var description: String {
        switch self {
        case .notAnImage(let detected): "not a JPEG, PNG, GIF or WebP image: the body looks like \(detected)"
        case .unsupportedFormat(let f): "cannot process \(f.displayName) images"
        case .truncated(let f, let detail): "truncated \(f.displayName): \(detail)"
        case .corrupt(let f, let detail): "corrupt \(f.displayName): \(detail)"
        case .tooManyPixels(let w, let h, let limit):
            "image is \(w)x\(h) (\(w * h) pixels), over the limit of \(limit) pixels"
        case .unsupportedContent(let f, let detail): "unsupported \(f.displayName): \(detail)"
        case .encodingFailed(let f, let detail): "could not encode \(f.displayName): \(detail)"
        case .outOfMemory: "out of memory while processing the image"
        case .unreadableFile(let path, let reason): "cannot read \(path): \(reason)"
        case .invalidArgument(let m): "invalid argument: \(m)"
        }
    }

    /// A short stable identifier for logs, events and metrics.
    public var code: String {
        switch self {
        case .notAnImage: "not_an_image"
        case .unsupportedFormat: "unsupported_format"
        case .truncated: "truncated"
        case .corrupt: "corrupt"
        case .tooManyPixels: "too_many_pixels"
        case .unsupportedContent: "unsupported_content"
        case .encodingFailed: "encoding_failed"
        case .outOfMemory: "out_of_memory"
        case .unreadableFile: "unreadable_file"
        case .invalidArgument: "invalid_argument"
        }
    }

    /// True when the bytes themselves are at fault (fetching them again as they are will not
    /// help); false when the local machine or the caller is (memory, disk, arguments).
    public var isContentError: Bool {
        switch self {
        case .notAnImage, .unsupportedFormat, .truncated, .corrupt, .tooManyPixels, .unsupportedContent: true
        case .encodingFailed, .outOfMemory, .unreadableFile, .invalidArgument: false
        }
    }

    /// The one place where a libjpeg or libpng result (through CImageProbe) becomes a Swift
    /// error. `encoding` says the status came from an encoder: failures are then ours, not
    /// the image's.
    static func check(_ status: prefetch_image_status, _ format: ImageFormat, limits: ImageLimits,
                      encoding: Bool = false) throws(ImageError) {
        let message = cString(status.message)
        switch status.code {
        case PREFETCH_IMAGE_OK: return
        case PREFETCH_IMAGE_NO_MEMORY: throw .outOfMemory
        case PREFETCH_IMAGE_BAD_ARGUMENT: throw .invalidArgument(message)
        case _ where encoding: throw .encodingFailed(format, detail: message)
        case PREFETCH_IMAGE_TRUNCATED: throw .truncated(format, detail: message)
        case PREFETCH_IMAGE_TOO_MANY_PIXELS:
            throw .tooManyPixels(width: Int(status.width), height: Int(status.height), limit: limits.maxPixels)
        case PREFETCH_IMAGE_UNSUPPORTED: throw .unsupportedContent(format, detail: message)
        default: throw .corrupt(format, detail: message)
        }
    }

    /// Fixed-size C char arrays import as tuples.
    private static func cString<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }
}

extension ImageFormat {
    var displayName: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .gif: "GIF"
        case .webp: "WebP"
        case .unknown: "unknown-format"
        }
    }
}
