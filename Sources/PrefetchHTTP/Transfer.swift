import CCurl
import PrefetchCache
import PrefetchCore
#if canImport(Glibc)
import Glibc
#endif

/// The state of one running transfer. Created and used only on the downloader's thread;
/// curl's callbacks reach it through an unmanaged pointer.
final class Transfer {
    let key: String
    /// The job whose request this is; kept even if every job sharing the transfer expires,
    /// so the body can still be stored.
    let leader: PendingJob
    let destination: TransferDestination
    let maxBodyBytes: Int
    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    var bytesWritten = 0
    /// The first bytes of the body, kept so the format can be sniffed without rereading.
    var head: [UInt8] = []
    /// The whole body too, while it stays under `TransferResponse.memoryLimit`: small
    /// bodies are then verified from memory instead of being read back from disk.
    var body: [UInt8]? = []
    var stopReason: TransferError.Reason?
    /// Hashes the body as it streams, so the cache can record its SHA-256 without rereading.
    let digest = SHA256Stream()
    private var closed = false

    init(key: String, leader: PendingJob, destination: TransferDestination, maxBodyBytes: Int) {
        self.key = key
        self.leader = leader
        self.destination = destination
        self.maxBodyBytes = maxBodyBytes
    }

    /// Called by curl for each chunk of the body. Returning less than `count` aborts.
    func write(_ data: UnsafeRawPointer, count: Int) -> Int {
        if bytesWritten + count > maxBodyBytes {
            // The Content-Length check (CURLOPT_MAXFILESIZE) misses absent or lying headers.
            stopReason = .bodyTooLarge(limit: maxBodyBytes)
            return 0
        }
        if head.count < TransferResponse.headLength {
            let take = min(count, TransferResponse.headLength - head.count)
            head.append(contentsOf: UnsafeRawBufferPointer(start: data, count: take))
        }
        digest?.update(UnsafeRawBufferPointer(start: data, count: count))
        if body != nil {
            if bytesWritten + count <= TransferResponse.memoryLimit {
                body!.append(contentsOf: UnsafeRawBufferPointer(start: data, count: count))
            } else {
                body = nil
            }
        }
        var offset = 0
        while offset < count {
            let n = Glibc.write(destination.fileDescriptor, data + offset, count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                stopReason = .writeFailed(errno: errno)
                return 0
            }
            offset += n
        }
        bytesWritten += count
        return count
    }

    /// Closes the body file and frees the header list; safe to call twice.
    func releaseResources() {
        if let list = headerList { curl_slist_free_all(list) }
        headerList = nil
        if !closed { close(destination.fileDescriptor) }
        closed = true
    }
}

/// curl's write callback: a plain non-capturing function, as C requires.
let transferWriteCallback: prefetch_data_callback = { pointer, size, count, userdata in
    guard let pointer, let userdata else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.write(UnsafeRawPointer(pointer), count: size * count)
}
