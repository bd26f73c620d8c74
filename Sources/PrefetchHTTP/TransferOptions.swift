import CCurl
import Foundation
import PrefetchCore

/// Setting up an easy handle for a job, and reading the response back out of it.
enum TransferOptions {
    static func apply(
        to easy: UnsafeMutableRawPointer, pending: PendingJob, transfer: Transfer, userdata: UnsafeMutableRawPointer,
        configuration c: Downloader.Configuration
    ) throws(CurlError) {
        let job = pending.job
        func set(_ option: CURLoption, _ value: Int) throws(CurlError) {
            try CurlError.check(prefetch_easy_setopt_long(easy, option, value), "option \(option.rawValue)")
        }
        func set(_ option: CURLoption, _ value: String) throws(CurlError) {
            try CurlError.check(prefetch_easy_setopt_string(easy, option, value), "option \(option.rawValue)")
        }
        // Credentials go through CURLOPT_USERNAME/PASSWORD, never in the URL curl may log.
        try set(CURLOPT_URL, job.url.string)
        try CurlError.check(prefetch_easy_setopt_pointer(easy, CURLOPT_PRIVATE, userdata), "CURLOPT_PRIVATE")
        try CurlError.check(prefetch_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, userdata), "CURLOPT_WRITEDATA")
        try CurlError.check(prefetch_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, transferWriteCallback), "CURLOPT_WRITEFUNCTION")
        // Only http and https, including after redirects.
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_FOLLOWLOCATION, 1)
        try set(CURLOPT_MAXREDIRS, c.maxRedirects)
        try set(CURLOPT_CONNECTTIMEOUT_MS, Int(c.connectTimeout * 1000))
        try set(CURLOPT_TIMEOUT_MS, Int(c.totalTimeout * 1000))
        try set(CURLOPT_LOW_SPEED_LIMIT, c.lowSpeedBytesPerSecond)
        try set(CURLOPT_LOW_SPEED_TIME, c.lowSpeedSeconds)
        try CurlError.check(prefetch_easy_setopt_offt(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(c.maxBodyBytes)), "CURLOPT_MAXFILESIZE_LARGE")
        try set(CURLOPT_USERAGENT, c.userAgent)
        try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        try set(CURLOPT_NOSIGNAL, 1)
        if let caFile = c.caFile { try set(CURLOPT_CAINFO, caFile) }
        // Wait for a connection to the same host rather than open another (multiplexing).
        try set(CURLOPT_PIPEWAIT, 1)
        if let credentials = job.effectiveCredentials {
            try set(CURLOPT_USERNAME, credentials.username)
            try set(CURLOPT_PASSWORD, credentials.password)
            try set(CURLOPT_HTTPAUTH, prefetch_auth_basic)
        }
        // Conditional headers for a revalidation; the job's own headers win on a clash.
        let headers = (pending.validators?.headers ?? [:]).merging(job.headers) { $1 }
        if !headers.isEmpty {
            var list: UnsafeMutablePointer<curl_slist>?
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
                list = curl_slist_append(list, value.isEmpty ? name + ";" : name + ": " + value)
            }
            transfer.headerList = list
            try CurlError.check(prefetch_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list), "CURLOPT_HTTPHEADER")
        }
    }

    static func response(easy: UnsafeMutableRawPointer, code: CURLcode, transfer: Transfer) -> TransferResponse {
        var status = 0
        _ = prefetch_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var response = TransferResponse(httpStatus: status, bytes: transfer.bytesWritten)
        response.contentType = stringInfo(easy, CURLINFO_CONTENT_TYPE)
        response.etag = header(easy, "ETag")
        response.lastModified = header(easy, "Last-Modified")
        var retryAfter: curl_off_t = 0
        if prefetch_easy_getinfo_offt(easy, CURLINFO_RETRY_AFTER, &retryAfter) == CURLE_OK, retryAfter > 0 {
            response.retryAfter = Double(retryAfter)
        }
        response.head = transfer.head
        response.sha256 = transfer.digest?.finishHex()
        response.body = transfer.body
        if code != CURLE_OK {
            response.error = error(for: code, stopReason: transfer.stopReason)
        }
        return response
    }

    static func error(for code: CURLcode, stopReason: TransferError.Reason?) -> TransferError {
        switch stopReason {
        case .bodyTooLarge(let limit)?:
            return TransferError(reason: .bodyTooLarge(limit: limit), message: "body larger than the limit of \(limit) bytes")
        case .writeFailed(let e)?:
            return TransferError(reason: .writeFailed(errno: e), message: "writing the body failed: " + String(cString: strerror(e)))
        default:
            break
        }
        switch code {
        case CURLE_FILESIZE_EXCEEDED:
            return TransferError(reason: .bodyTooLarge(limit: -1), message: "Content-Length exceeds the body size limit")
        case CURLE_TOO_MANY_REDIRECTS:
            return TransferError(reason: .curl(code: Int(code.rawValue), transient: false), message: "too many redirects")
        case CURLE_UNSUPPORTED_PROTOCOL:
            return TransferError(reason: .curl(code: Int(code.rawValue), transient: false),
                                 message: "redirect to a scheme other than http or https refused")
        default:
            let transient = CurlError.failureKind(for: code) == .transient
            return TransferError(reason: .curl(code: Int(code.rawValue), transient: transient),
                                 message: String(cString: curl_easy_strerror(code)))
        }
    }

    private static func stringInfo(_ easy: UnsafeMutableRawPointer, _ info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard prefetch_easy_getinfo_string(easy, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    /// A response header of the last request (after redirects).
    private static func header(_ easy: UnsafeMutableRawPointer, _ name: String) -> String? {
        var out: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(easy, name, 0, UInt32(CURLH_HEADER), -1, &out) == CURLHE_OK, let out, let value = out.pointee.value
        else { return nil }
        return String(cString: value)
    }
}
