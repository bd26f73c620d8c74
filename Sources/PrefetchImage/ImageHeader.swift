import CImageProbe

/// Format and dimensions read from an image's header, without decoding pixels.
public struct ImageHeader: Sendable, Equatable {
    public let format: ImageFormat
    public let width: Int
    public let height: Int

    public init(format: ImageFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }

    /// Reads the header of a JPEG (with libjpeg) or a PNG (signature and IHDR, CRC checked)
    /// held in memory. Other formats throw `unsupportedFormat`.
    public static func read(_ bytes: UnsafeRawBufferPointer) throws(ImageError) -> ImageHeader {
        switch ImageFormat.sniff(bytes) {
        case .jpeg: return try JPEGCodec.readHeader(bytes)
        case .png:
            let ihdr = try PNGStructure.readHeader(bytes)
            return ImageHeader(format: .png, width: ihdr.width, height: ihdr.height)
        case let other: throw .unsupportedFormat(other)
        }
    }
}

extension ImageLimits {
    /// Throws when `width x height` is over `maxPixels`.
    func check(_ header: ImageHeader) throws(ImageError) {
        let (pixels, overflow) = header.width.multipliedReportingOverflow(by: header.height)
        if overflow || pixels > maxPixels {
            throw .tooManyPixels(width: header.width, height: header.height, limit: maxPixels)
        }
    }

    var maxPixelsForC: UInt64 { UInt64(max(0, maxPixels)) }
}
