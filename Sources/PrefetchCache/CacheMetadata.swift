import Foundation
import PrefetchCore

/// The record stored as `<hash>.meta`, as JSON. It names the body file it belongs to, so
/// a reader never pairs a body with another version's metadata.
public struct CacheMetadata: Sendable, Equatable, Codable {
    public var url: String
    public var key: String
    /// The body's file name in the entry's directory (`<hash>.<version>.body`).
    public var body: String
    public var size: Int
    /// Hex SHA-256 of the body, to detect corruption.
    public var sha256: String?
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    public var httpStatus: Int?
    /// The body's type sniffed from its first bytes (`jpeg`, `png`, `gif`, `webp`, `unknown`).
    public var format: String?
    public var width: Int?
    public var height: Int?
    /// Seconds since 1970 when the body was stored.
    public var storedAt: Double
    /// Seconds since 1970 when the origin last confirmed the body (a 200 or a 304).
    public var validatedAt: Double?
    /// For a thumbnail: the SHA-256 of the original it was made from (so a changed
    /// original gets new thumbnails).
    public var sourceSHA256: String?
    /// The verification level the body passed (`none`, `header`, `structure`, `full`).
    public var verified: String?

    public init(
        url: String, key: String, body: String = "", size: Int, sha256: String? = nil, contentType: String? = nil,
        etag: String? = nil, lastModified: String? = nil, httpStatus: Int? = nil, format: String? = nil,
        width: Int? = nil, height: Int? = nil, storedAt: Double, validatedAt: Double? = nil
    ) {
        self.url = url
        self.key = key
        self.body = body
        self.size = size
        self.sha256 = sha256
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.httpStatus = httpStatus
        self.format = format
        self.width = width
        self.height = height
        self.storedAt = storedAt
        self.validatedAt = validatedAt
    }

    enum CodingKeys: String, CodingKey {
        case url, key, body, size, sha256
        case contentType = "content_type"
        case etag
        case lastModified = "last_modified"
        case httpStatus = "status"
        case format, width, height
        case storedAt = "stored_at"
        case validatedAt = "validated_at"
        case sourceSHA256 = "source_sha256"
        case verified
    }

    public func jsonString() -> String {
        var w = JSONWriter()
        w.field("url", url)
        w.field("key", key)
        w.field("body", body)
        w.field("size", size)
        w.field("sha256", sha256)
        w.field("content_type", contentType)
        w.field("etag", etag)
        w.field("last_modified", lastModified)
        w.field("status", httpStatus)
        w.field("format", format)
        w.field("width", width)
        w.field("height", height)
        w.field("stored_at", storedAt)
        w.field("validated_at", validatedAt)
        w.field("source_sha256", sourceSHA256)
        w.field("verified", verified)
        return w.finish()
    }

    public static func decode(_ data: Data) throws -> CacheMetadata {
        try JSONDecoder().decode(CacheMetadata.self, from: data)
    }
}
