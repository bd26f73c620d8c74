import CImageProbe
import CPNG

/// Format and dimensions read from an image's header, without decoding pixels.
public struct ImageHeader: Sendable, Equatable {
    public let format: ImageFormat
    public let width: Int
    public let height: Int

    /// Reads the header of a JPEG or PNG held in memory.
    public static func read(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
        switch ImageFormat.sniff(bytes) {
        case .jpeg: return try readJPEG(bytes)
        case .png: return try readPNG(bytes)
        case let other: throw .unsupportedFormat(other)
        }
    }

    private static func readJPEG(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
        let result = prefetch_jpeg_read_header(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        try ImageError.checkJPEG(result.status, message: result.message)
        return ImageHeader(format: .jpeg, width: Int(result.width), height: Int(result.height))
    }

    private static func readPNG(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        let ok = png_image_begin_read_from_memory(&image, bytes.baseAddress, bytes.count)
        defer { png_image_free(&image) }
        try ImageError.checkPNG(ok, image: image)
        return ImageHeader(format: .png, width: Int(image.width), height: Int(image.height))
    }
}
