import CCurl
import PrefetchCore

/// A libcurl result code as a Swift error. Every `CURLcode` and `CURLMcode` in the
/// project goes through `check` here, so none is silently ignored.
public struct CurlError: Error, CustomStringConvertible, Sendable, Equatable {
    public let code: Int
    public let message: String

    public var description: String { "curl error \(code): \(message)" }

    static func check(_ code: CURLcode, _ what: @autoclosure () -> String) throws(CurlError) {
        guard code != CURLE_OK else { return }
        throw CurlError(code: Int(code.rawValue), message: what() + ": " + String(cString: curl_easy_strerror(code)))
    }

    static func check(_ code: CURLMcode, _ what: @autoclosure () -> String) throws(CurlError) {
        guard code != CURLM_OK else { return }
        throw CurlError(code: Int(code.rawValue), message: what() + ": " + String(cString: curl_multi_strerror(code)))
    }

    /// Whether a failed transfer is worth retrying. Timeouts, refused or reset connections
    /// and DNS failures are transient: an offline spell must never mark a URL failed.
    /// The same, from the number curl documents (e.g. 28 for a timeout).
    public static func failureKind(forCode code: Int) -> Failure.Kind {
        failureKind(for: CURLcode(rawValue: UInt32(code)))
    }

    public static func failureKind(for code: CURLcode) -> Failure.Kind {
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT,
             CURLE_OPERATION_TIMEDOUT, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING,
             CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_SSL_CONNECT_ERROR,
             CURLE_AGAIN, CURLE_HTTP3, CURLE_QUIC_CONNECT_ERROR:
            return .transient
        default:
            return .permanent
        }
    }
}
