// cache-stress: a test tool (not shipped) that hammers one cache directory from its own
// process, so tests can run several writers and readers at once and kill them.
//
//   cache-stress write ROOT KEYS SECONDS   overwrite keys k0..k(KEYS-1) with random bodies
//   cache-stress read ROOT KEYS SECONDS    read them in a loop; every body must match the
//                                          size and SHA-256 of the metadata it came with
//   cache-stress fill ROOT COUNT BYTES     store COUNT new entries of BYTES each, as the
//                                          worker does (temp file, SHA-256, commit); for
//                                          scripts/bench-cache.sh
// Prints "<mode> <operations> <mismatches>" (fill: "fill <count> <entries/s>") and exits 1
// if any read mismatched.
import Foundation
import PrefetchCache

let args = CommandLine.arguments
guard args.count == 5, let keys = Int(args[3]), let seconds = Double(args[4]) else {
    FileHandle.standardError.write(Data("usage: cache-stress write|read ROOT KEYS SECONDS\n".utf8))
    exit(2)
}
let root = args[2]
let deadline = Date(timeIntervalSinceNow: seconds)
var operations = 0
var mismatches = 0

switch args[1] {
case "fill":
    let cache = try DiskCache(root: root)
    let size = Int(seconds)
    var body = [UInt8](repeating: 0, count: size)
    let started = Date()
    for i in 0..<keys {
        body[i % size] &+= 1 // every body differs
        let key = "fill:\(i)"
        let temp = try cache.createTemporaryFile(forKey: key)
        _ = body.withUnsafeBytes { write(temp.fd, $0.baseAddress, $0.count) }
        close(temp.fd)
        try cache.commit(temporaryPath: temp.path, key: key, metadata: CacheMetadata(
            url: key, key: key, size: size, sha256: body.withUnsafeBytes { SHA256.hex($0) }, storedAt: Date().timeIntervalSince1970))
    }
    print("fill \(keys) \(Int(Double(keys) / -started.timeIntervalSinceNow))")
    exit(0)
case "write":
    let cache = try DiskCache(root: root)
    while Date() < deadline {
        let key = "k\(Int.random(in: 0..<keys))"
        let size = Int.random(in: 1...200_000)
        var body = [UInt8](repeating: 0, count: size)
        for i in stride(from: 0, to: size, by: 8) { body[i] = UInt8.random(in: 0...255) }
        let temp = try cache.createTemporaryFile(forKey: key)
        // Write in pieces, as a download does, so a kill can land mid-body.
        var offset = 0
        while offset < size {
            let n = min(16_384, size - offset)
            _ = body.withUnsafeBytes { write(temp.fd, $0.baseAddress! + offset, n) }
            offset += n
        }
        close(temp.fd)
        let digest = body.withUnsafeBytes { SHA256.hex($0) }
        try cache.commit(temporaryPath: temp.path, key: key, metadata: CacheMetadata(
            url: "stress:" + key, key: key, size: size, sha256: digest, storedAt: Date().timeIntervalSince1970))
        operations += 1
    }
case "read":
    let reader = CacheReader(root: root)
    while Date() < deadline {
        let key = "k\(Int.random(in: 0..<keys))"
        guard let (entry, body) = reader.read(key: key) else { continue }
        operations += 1
        let digest = body.withUnsafeBytes { SHA256.hex($0) }
        if body.count != entry.metadata.size || digest != entry.metadata.sha256 {
            mismatches += 1
            FileHandle.standardError.write(Data("mismatch \(key): \(body.count) bytes vs \(entry.metadata.size)\n".utf8))
        }
    }
default:
    exit(2)
}
print("\(args[1]) \(operations) \(mismatches)")
exit(mismatches == 0 ? 0 : 1)
