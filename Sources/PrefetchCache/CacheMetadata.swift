import Foundation
import PrefetchCore

/// The record stored beside each body (`<hash>.meta`), as JSON.
public struct CacheMetadata: Sendable, Equatable, Codable {
    public var url: String
    public var key: String
    public var size: Int
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    public var httpStatus: Int?
    /// The body's type sniffed from its first bytes (`jpeg`, `png`, `gif`, `webp`, `unknown`).
    public var format: String?
    /// Seconds since 1970 when the body was stored.
    public var storedAt: Double

    public init(
        url: String, key: String, size: Int, contentType: String? = nil, etag: String? = nil,
        lastModified: String? = nil, httpStatus: Int? = nil, format: String? = nil, storedAt: Double
    ) {
        self.url = url
        self.key = key
        self.size = size
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.httpStatus = httpStatus
        self.format = format
        self.storedAt = storedAt
    }

    enum CodingKeys: String, CodingKey {
        case url, key, size
        case contentType = "content_type"
        case etag
        case lastModified = "last_modified"
        case httpStatus = "status"
        case format
        case storedAt = "stored_at"
    }

    public func jsonString() -> String {
        var w = JSONWriter()
        w.field("url", url)
        w.field("key", key)
        w.field("size", size)
        w.field("content_type", contentType)
        w.field("etag", etag)
        w.field("last_modified", lastModified)
        w.field("status", httpStatus)
        w.field("format", format)
        w.field("stored_at", storedAt)
        return w.finish()
    }

    public static func decode(_ data: Data) throws -> CacheMetadata {
        try JSONDecoder().decode(CacheMetadata.self, from: data)
    }
}
