import CImageProbe
import Foundation

/// Swift faces of the C calls in CImageProbe. Each returns a value or throws; the statuses
/// are mapped in `ImageError.check`.
enum JPEGCodec {
    static func readHeader(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
        let status = prefetch_jpeg_read_header(bytes.bytePointer, bytes.count)
        try ImageError.check(status, .jpeg, limits: ImageLimits())
        return ImageHeader(format: .jpeg, width: Int(status.width), height: Int(status.height))
    }

    /// Decodes every entropy-coded block; the inverse DCT runs at 1/`scaleDenominator` size.
    static func verify(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits, scaleDenominator: Int32 = 8) throws(ImageError) {
        var status = prefetch_image_status()
        prefetch_jpeg_verify(bytes.bytePointer, bytes.count, limits.maxPixelsForC,
                             scaleDenominator, &status)
        try ImageError.check(status, .jpeg, limits: limits)
    }

    /// Decodes at the smallest DCT scale at least `width` x `height`, then area-averages to
    /// exactly that size. Returns the channel count (1 grey or 3 RGB).
    static func decodeResized(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int, limits: ImageLimits,
                              into pixels: UnsafeMutableRawBufferPointer) throws(ImageError) -> Int {
        precondition(pixels.count >= width * height * 3)
        var status = prefetch_image_status()
        prefetch_jpeg_decode_resized(bytes.bytePointer, bytes.count, limits.maxPixelsForC,
                                     UInt32(width), UInt32(height), pixels.bytePointer,
                                     &status)
        try ImageError.check(status, .jpeg, limits: limits)
        return Int(status.components)
    }

    static func encode(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, channels: Int, quality: Int) throws(ImageError) -> Data {
        precondition(pixels.count >= width * height * channels)
        var out = prefetch_encoded()
        var status = prefetch_image_status()
        prefetch_jpeg_encode(pixels.bytePointer, UInt32(width), UInt32(height),
                             Int32(channels), Int32(quality), &out, &status)
        try ImageError.check(status, .jpeg, limits: ImageLimits(), encoding: true)
        return takeEncoded(out)
    }
}

enum PNGCodec {
    /// Decodes the whole image up to IEND, one row at a time.
    static func verify(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws(ImageError) {
        var status = prefetch_image_status()
        prefetch_png_verify(bytes.bytePointer, bytes.count, limits.maxPixelsForC, &status)
        try ImageError.check(status, .png, limits: limits)
    }

    /// Decodes to 8-bit grey, grey+alpha, RGB or RGBA and area-averages to `width` x
    /// `height`. Returns the channel count (1 to 4).
    static func decodeResized(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int, limits: ImageLimits,
                              into pixels: UnsafeMutableRawBufferPointer) throws(ImageError) -> Int {
        precondition(pixels.count >= width * height * 4)
        var status = prefetch_image_status()
        prefetch_png_decode_resized(bytes.bytePointer, bytes.count, limits.maxPixelsForC,
                                    UInt32(width), UInt32(height), pixels.bytePointer,
                                    &status)
        try ImageError.check(status, .png, limits: limits)
        return Int(status.components)
    }

    static func encode(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, channels: Int) throws(ImageError) -> Data {
        precondition(pixels.count >= width * height * channels)
        var out = prefetch_encoded()
        var status = prefetch_image_status()
        prefetch_png_encode(pixels.bytePointer, UInt32(width), UInt32(height),
                            Int32(channels), &out, &status)
        try ImageError.check(status, .png, limits: ImageLimits(), encoding: true)
        return takeEncoded(out)
    }
}

/// Hands the C encoder's malloc'd buffer to Data without copying; Data frees it.
private func takeEncoded(_ out: prefetch_encoded) -> Data {
    guard let data = out.data, out.size > 0 else {
        free(out.data)
        return Data()
    }
    return Data(bytesNoCopy: data, count: out.size, deallocator: .free)
}

extension UnsafeRawBufferPointer {
    /// The bytes as the `const unsigned char *` C expects (UInt8 may alias any memory).
    var bytePointer: UnsafePointer<UInt8>? { baseAddress?.assumingMemoryBound(to: UInt8.self) }
}

extension UnsafeMutableRawBufferPointer {
    var bytePointer: UnsafeMutablePointer<UInt8>? { baseAddress?.assumingMemoryBound(to: UInt8.self) }
}
