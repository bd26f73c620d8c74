import Foundation

public struct Thumbnail: Sendable, Equatable {
    /// Same as the source: JPEG gives JPEG, PNG gives PNG.
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    /// The encoded image.
    public let data: Data
    /// False when the source was already no larger than the requested size: the image was
    /// re-encoded at its own size, never enlarged.
    public let scaled: Bool
}

/// Makes small copies of JPEG and PNG images.
///
/// - JPEG: decoded with libjpeg-turbo's DCT scaling at the smallest scale (n/8) whose size is
///   at least the target, area-averaged to the exact size, encoded as baseline JPEG
///   (greyscale stays greyscale; CMYK becomes RGB).
/// - PNG: decoded to 8 bits per channel (palette and tRNS become alpha, 16 bits are scaled),
///   area-averaged with colour weighted by alpha, encoded as PNG (grey, grey+alpha, RGB or
///   RGBA, as the source). Gamma and colour-profile chunks are not carried over.
///
/// Sources are decoded row by row into the resampler: memory is the thumbnail plus a few
/// rows (an interlaced PNG needs the whole decoded image). Any decoder warning fails, as in
/// `VerificationLevel.full`. Blocking: run it off Swift's cooperative pool.
public enum Thumbnailer {
    public static let defaultJPEGQuality = 85

    /// - Parameters:
    ///   - longestSide: the longest side of the result, in pixels. The aspect ratio is kept;
    ///     an image already that small or smaller keeps its size (`scaled` is false).
    ///   - jpegQuality: 1...100, for JPEG sources.
    public static func make(from bytes: UnsafeRawBufferPointer, longestSide: Int, jpegQuality: Int = defaultJPEGQuality,
                            limits: ImageLimits = ImageLimits()) throws(ImageError) -> Thumbnail {
        guard longestSide > 0 else { throw .invalidArgument("longestSide must be positive, not \(longestSide)") }
        guard (1...100).contains(jpegQuality) else { throw .invalidArgument("jpegQuality must be 1...100, not \(jpegQuality)") }
        let format = ImageFormat.sniff(bytes)
        let header: ImageHeader
        switch format {
        case .jpeg: header = try JPEGCodec.readHeader(bytes)
        case .png:
            let ihdr = try PNGStructure.readHeader(bytes)
            header = ImageHeader(format: .png, width: ihdr.width, height: ihdr.height)
        case .gif, .webp: throw .unsupportedFormat(format)
        case .unknown: throw .notAnImage(detected: BodyDescription.describe(bytes))
        }
        try limits.check(header)
        let size = targetSize(width: header.width, height: header.height, longestSide: longestSide)
        let pixels = UnsafeMutableRawBufferPointer.allocate(byteCount: size.width * size.height * 4, alignment: 16)
        defer { pixels.deallocate() }
        let data: Data
        if format == .jpeg {
            let channels = try JPEGCodec.decodeResized(bytes, width: size.width, height: size.height, limits: limits, into: pixels)
            data = try JPEGCodec.encode(UnsafeRawBufferPointer(pixels), width: size.width, height: size.height,
                                        channels: channels, quality: jpegQuality)
        } else {
            let channels = try PNGCodec.decodeResized(bytes, width: size.width, height: size.height, limits: limits, into: pixels)
            data = try PNGCodec.encode(UnsafeRawBufferPointer(pixels), width: size.width, height: size.height, channels: channels)
        }
        return Thumbnail(format: format, width: size.width, height: size.height, data: data,
                         scaled: size.width != header.width || size.height != header.height)
    }

    /// Makes a thumbnail of a file, mapped into memory for the call.
    public static func make(fileAt path: String, longestSide: Int, jpegQuality: Int = defaultJPEGQuality,
                            limits: ImageLimits = ImageLimits()) throws(ImageError) -> Thumbnail {
        try MappedFile.withBytes(path: path) { bytes throws(ImageError) in
            try make(from: bytes, longestSide: longestSide, jpegQuality: jpegQuality, limits: limits)
        }
    }

    /// The size `make` produces: the longest side becomes `longestSide` (never more than the
    /// source's), the other is rounded to the nearest pixel and at least 1.
    public static func targetSize(width: Int, height: Int, longestSide: Int) -> (width: Int, height: Int) {
        let longest = max(width, height)
        guard longest > longestSide else { return (width, height) }
        let shorter = min(width, height)
        let scaled = max(1, (shorter * longestSide + longest / 2) / longest)
        return width >= height ? (longestSide, scaled) : (scaled, longestSide)
    }
}
