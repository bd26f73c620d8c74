#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Maps a whole file read-only for the length of a call.
enum MappedFile {
    static func withBytes<R>(path: String, _ body: (UnsafeRawBufferPointer) throws(ImageError) -> R) throws(ImageError) -> R {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(path, "open") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(path, "fstat") }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .unreadableFile(path: path, reason: "not a regular file")
        }
        let size = Int(info.st_size)
        if size == 0 { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), address != MAP_FAILED else {
            throw failure(path, "mmap")
        }
        defer { munmap(address, size) }
        return try body(UnsafeRawBufferPointer(start: address, count: size))
    }

    private static func failure(_ path: String, _ call: String) -> ImageError {
        .unreadableFile(path: path, reason: "\(call): \(String(cString: strerror(errno)))")
    }
}
