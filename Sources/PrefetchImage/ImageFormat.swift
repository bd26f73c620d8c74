/// A body's type, sniffed from its first bytes: never from the URL or the Content-Type,
/// which lie (an HTML error page served as image/jpeg, say).
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, gif, webp, unknown

    /// How many leading bytes `sniff` needs at most.
    public static let sniffLength = 12

    public static func sniff<C: Collection>(_ bytes: C) -> ImageFormat where C.Element == UInt8 {
        let b = Array(bytes.prefix(sniffLength))
        if b.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if b.starts(with: Array("GIF87a".utf8)) || b.starts(with: Array("GIF89a".utf8)) { return .gif }
        if b.count >= 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) { return .webp }
        return .unknown
    }

    /// JPEG and PNG: the formats verification and thumbnails work on.
    public var isVerifiable: Bool { self == .jpeg || self == .png }

    /// Any image format prefetchd recognises (what `expect_image` accepts).
    public var isImage: Bool { self != .unknown }
}
