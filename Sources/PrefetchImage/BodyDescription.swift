/// Says what a body that is not an image looks like, for `ImageError.notAnImage`. Only the
/// first 512 bytes are read. The answer is for people reading errors, not for decisions.
enum BodyDescription {
    static func describe(_ bytes: UnsafeRawBufferPointer) -> String {
        if bytes.isEmpty { return "an empty body" }
        let head = Array(bytes.prefix(512))
        if let kind = binaryKind(head) { return kind }
        if let kind = markupKind(head) { return kind }
        if isText(head) { return "plain text" }
        let hex = head.prefix(4).map { "0x" + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
        return "unrecognised binary data (starting \(hex))"
    }

    private static func binaryKind(_ b: [UInt8]) -> String? {
        func starts(_ s: String) -> Bool { b.starts(with: Array(s.utf8)) }
        if b.starts(with: [0x1F, 0x8B]) { return "gzip-compressed data" }
        if starts("%PDF-") { return "a PDF document" }
        if b.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return "a ZIP archive" }
        if starts("II*\u{0}") || starts("MM\u{0}*") { return "a TIFF image" }
        if starts("BM"), b.count >= 14, b[6..<10].allSatisfy({ $0 == 0 }) { return "a BMP image" }
        if b.starts(with: [0, 0, 1, 0]) { return "an ICO image" }
        if b.count >= 12, Array(b[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: b[8..<12], as: UTF8.self)
            switch brand {
            case "avif", "avis": return "an AVIF image"
            case "heic", "heix", "mif1", "msf1": return "a HEIF image"
            default: return "an ISO media file (\(brand))"
            }
        }
        if b.starts(with: [0xFF, 0xD8]) { return "a damaged JPEG (no marker after SOI)" }
        return nil
    }

    private static func markupKind(_ b: [UInt8]) -> String? {
        var text = String(decoding: b, as: UTF8.self).lowercased()
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let trimmed = text.drop(while: { $0.isWhitespace })
        if trimmed.hasPrefix("<!doctype html") || trimmed.hasPrefix("<html") || text.contains("<html")
            || text.contains("<head") || text.contains("<body") { return "an HTML document" }
        if trimmed.hasPrefix("<svg") || (trimmed.hasPrefix("<?xml") && text.contains("<svg")) { return "an SVG document" }
        if trimmed.hasPrefix("<?xml") { return "an XML document" }
        if (trimmed.hasPrefix("{") || trimmed.hasPrefix("[")) && isText(b) { return "JSON" }
        return nil
    }

    /// Valid UTF-8 (allowing a character cut at the end) without control characters other
    /// than tab, newline, carriage return and form feed.
    private static func isText(_ b: [UInt8]) -> Bool {
        for byte in b where byte < 0x20 && ![0x09, 0x0A, 0x0C, 0x0D].contains(byte) { return false }
        if b.contains(0x7F) { return false }
        var prefix = b[...]
        // Drop an incomplete character at the cut.
        for k in 1...3 where prefix.count >= k {
            let lead = prefix[prefix.endIndex - k]
            if lead & 0xC0 == 0xC0 {
                let needed = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
                if needed > k { prefix = prefix.dropLast(k) }
                break
            }
            if lead & 0x80 == 0 { break }
        }
        return String(validating: prefix, as: UTF8.self) != nil
    }
}
