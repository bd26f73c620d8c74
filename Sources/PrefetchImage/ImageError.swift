import CPNG

/// Why an image was refused. libjpeg and libpng results become these in one place each.
public enum ImageError: Error, Equatable, CustomStringConvertible, Sendable {
    case unsupportedFormat(ImageFormat)
    case corruptJPEG(String)
    case corruptPNG(String)

    public var description: String {
        switch self {
        case .unsupportedFormat(let f): "cannot read \(f.rawValue) images"
        case .corruptJPEG(let m): "corrupt JPEG: \(m)"
        case .corruptPNG(let m): "corrupt PNG: \(m)"
        }
    }

    /// libjpeg (through the CImageProbe shim): status 0 is success, else `message` says why.
    static func checkJPEG<T>(_ status: Int32, message: T) throws(ImageError) {
        guard status != 0 else { return }
        throw .corruptJPEG(cString(message))
    }

    /// libpng's simplified API: non-zero is success; failures leave text in `image.message`.
    static func checkPNG(_ ok: Int32, image: png_image) throws(ImageError) {
        guard ok == 0 else { return }
        throw .corruptPNG(cString(image.message))
    }

    /// Fixed-size C char arrays import as tuples.
    private static func cString<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }
}
