import CCurl
import Foundation

extension Downloader {
    /// The multi loop. Everything in here runs on the downloader's own thread.
    func runLoop() {
        var active = Set<UnsafeMutableRawPointer>()
        var idleHandles: [UnsafeMutableRawPointer] = []
        let multi = handleForLoop.multi
        while true {
            let (incoming, stopping) = takePending(limit: configuration.maxConcurrentTransfers - active.count)
            for transfer in incoming { start(transfer, multi: multi, idle: &idleHandles, active: &active) }
            if stopping { break }

            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            drainCompleted(multi: multi, idle: &idleHandles, active: &active)

            // Stall trap: if every transfer just finished, poll would wait out its whole
            // timeout with no socket to watch. New work wakes it through curl_multi_wakeup.
            if active.count < configuration.maxConcurrentTransfers && hasPending { continue }
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        abortAll(multi: multi, idle: &idleHandles, active: active)
        for easy in idleHandles { curl_easy_cleanup(easy) }
        curl_multi_cleanup(multi)
        signalFinished()
    }

    private func start(_ transfer: Transfer, multi: UnsafeMutableRawPointer, idle: inout [UnsafeMutableRawPointer], active: inout Set<UnsafeMutableRawPointer>) {
        let easy: UnsafeMutableRawPointer
        if let reused = idle.popLast() {
            curl_easy_reset(reused)
            easy = reused
        } else if let fresh = curl_easy_init() {
            easy = fresh
        } else {
            finish(transfer, error: TransferError(reason: .curl(code: -1, transient: true), message: "curl_easy_init failed"))
            return
        }
        transfer.easy = easy
        let opaque = Unmanaged.passRetained(transfer).toOpaque()
        do {
            try configure(easy, for: transfer, userdata: opaque)
            try CurlError.check(curl_multi_add_handle(multi, easy), "curl_multi_add_handle")
            active.insert(easy)
        } catch {
            Unmanaged<Transfer>.fromOpaque(opaque).release()
            idle.append(easy)
            finish(transfer, error: TransferError(reason: .curl(code: error.code, transient: false), message: error.message))
        }
    }

    private func configure(_ easy: UnsafeMutableRawPointer, for transfer: Transfer, userdata: UnsafeMutableRawPointer) throws(CurlError) {
        let c = configuration
        try CurlError.check(prefetch_easy_setopt_string(easy, CURLOPT_URL, transfer.request.url), "CURLOPT_URL")
        try CurlError.check(prefetch_easy_setopt_pointer(easy, CURLOPT_PRIVATE, userdata), "CURLOPT_PRIVATE")
        try CurlError.check(prefetch_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, userdata), "CURLOPT_WRITEDATA")
        try CurlError.check(prefetch_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, transferWriteCallback), "CURLOPT_WRITEFUNCTION")
        try CurlError.check(prefetch_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"), "CURLOPT_PROTOCOLS_STR")
        try CurlError.check(prefetch_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"), "CURLOPT_REDIR_PROTOCOLS_STR")
        try CurlError.check(prefetch_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1), "CURLOPT_FOLLOWLOCATION")
        try CurlError.check(prefetch_easy_setopt_long(easy, CURLOPT_MAXREDIRS, c.maxRedirects), "CURLOPT_MAXREDIRS")
        try CurlError.check(prefetch_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(c.connectTimeout * 1000)), "CURLOPT_CONNECTTIMEOUT_MS")
        try CurlError.check(prefetch_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(c.totalTimeout * 1000)), "CURLOPT_TIMEOUT_MS")
        try CurlError.check(prefetch_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, c.lowSpeedBytesPerSecond), "CURLOPT_LOW_SPEED_LIMIT")
        try CurlError.check(prefetch_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, c.lowSpeedSeconds), "CURLOPT_LOW_SPEED_TIME")
        try CurlError.check(prefetch_easy_setopt_offt(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(c.maxBodyBytes)), "CURLOPT_MAXFILESIZE_LARGE")
        try CurlError.check(prefetch_easy_setopt_string(easy, CURLOPT_USERAGENT, c.userAgent), "CURLOPT_USERAGENT")
        try CurlError.check(prefetch_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)), "CURLOPT_HTTP_VERSION")
        try CurlError.check(prefetch_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        if !transfer.request.headers.isEmpty {
            var list: UnsafeMutablePointer<curl_slist>?
            for header in transfer.request.headers { list = curl_slist_append(list, header) }
            transfer.headerList = list
            try CurlError.check(prefetch_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list), "CURLOPT_HTTPHEADER")
        }
    }

    /// Reads curl's "done" messages and completes those transfers.
    private func drainCompleted(multi: UnsafeMutableRawPointer, idle: inout [UnsafeMutableRawPointer], active: inout Set<UnsafeMutableRawPointer>) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = prefetch_msg_result(message)
            var priv: UnsafeMutableRawPointer?
            _ = prefetch_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &priv)
            curl_multi_remove_handle(multi, easy)
            active.remove(easy)
            guard let priv else { idle.append(easy); continue }
            let transfer = Unmanaged<Transfer>.fromOpaque(priv).takeRetainedValue()
            complete(transfer, easy: easy, code: code)
            idle.append(easy)
        }
    }

    private func complete(_ transfer: Transfer, easy: UnsafeMutableRawPointer, code: CURLcode) {
        var status = 0
        _ = prefetch_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var response = TransferResponse(
            httpStatus: status, bytes: transfer.bytesWritten,
            contentType: Self.stringInfo(easy, CURLINFO_CONTENT_TYPE),
            etag: Self.header(easy, "ETag"), lastModified: Self.header(easy, "Last-Modified"),
            head: transfer.head, error: nil)
        if code != CURLE_OK {
            response.error = Self.error(for: code, stopReason: transfer.stopReason)
        }
        finish(transfer, response: response)
    }

    private static func error(for code: CURLcode, stopReason: TransferError.Reason?) -> TransferError {
        switch stopReason {
        case .bodyTooLarge(let limit)?:
            return TransferError(reason: .bodyTooLarge(limit: limit), message: "body larger than \(limit) bytes")
        case .writeFailed(let e)?:
            return TransferError(reason: .writeFailed(errno: e), message: "writing the body failed: " + String(cString: strerror(e)))
        default:
            if code == CURLE_FILESIZE_EXCEEDED {
                return TransferError(reason: .bodyTooLarge(limit: -1), message: "Content-Length exceeds the body size limit")
            }
            let transient = CurlError.failureKind(for: code) == .transient
            return TransferError(reason: .curl(code: Int(code.rawValue), transient: transient),
                                 message: String(cString: curl_easy_strerror(code)))
        }
    }

    private func abortAll(multi: UnsafeMutableRawPointer, idle: inout [UnsafeMutableRawPointer], active: Set<UnsafeMutableRawPointer>) {
        for easy in active {
            var priv: UnsafeMutableRawPointer?
            _ = prefetch_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &priv)
            curl_multi_remove_handle(multi, easy)
            idle.append(easy)
            if let priv {
                let transfer = Unmanaged<Transfer>.fromOpaque(priv).takeRetainedValue()
                finish(transfer, error: TransferError(reason: .cancelled, message: "downloader shut down"))
            }
        }
        for transfer in takePending().0 {
            finish(transfer, error: TransferError(reason: .cancelled, message: "downloader shut down"))
        }
    }

    private func finish(_ transfer: Transfer, error: TransferError) {
        finish(transfer, response: TransferResponse(httpStatus: 0, bytes: transfer.bytesWritten, error: error))
    }

    private func finish(_ transfer: Transfer, response: TransferResponse) {
        if let list = transfer.headerList { curl_slist_free_all(list) }
        transfer.headerList = nil
        close(transfer.request.fileDescriptor)
        transfer.completion(response)
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
