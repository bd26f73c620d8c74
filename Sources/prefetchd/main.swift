import Foundation
import PrefetchCore
import PrefetchHTTP

// curl_global_init is not thread-safe: do it before any thread exists.
CurlRuntime.initializeOnce()

let usage = """
    prefetchd \(PrefetchVersion.string): distributed prefetch worker

    usage: prefetchd <command> [options]

    commands:
      worker     take jobs from Redis and fill the cache
      enqueue    push URLs or JSON jobs onto the queue
      cache      look up entries, stat, verify and prune the cache
      failed     list, remove or clear URLs in the failed set
      version    print versions

    Run `prefetchd <command> --help` for a command's options.
    """

var arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.isEmpty ? "help" : arguments.removeFirst()
let wantsHelp = arguments.contains("--help") || arguments.contains("-h")

do {
    let status: Int32
    switch command {
    case "worker" where wantsHelp: print(WorkerCommand.usage); status = 0
    case "worker": status = try WorkerCommand.run(arguments)
    case "enqueue" where wantsHelp: print(EnqueueCommand.usage); status = 0
    case "enqueue": status = try EnqueueCommand.run(arguments)
    case "cache" where wantsHelp: print(CacheCommand.usage); status = 0
    case "cache": status = try CacheCommand.run(arguments)
    case "failed" where wantsHelp: print(FailedCommand.usage); status = 0
    case "failed": status = try FailedCommand.run(arguments)
    case "version", "--version":
        print("prefetchd \(PrefetchVersion.string)\n\(CurlRuntime.version)")
        status = 0
    case "help", "--help", "-h": print(usage); status = 0
    default:
        FileHandle.standardError.write(Data("prefetchd: unknown command '\(command)'\n\n\(usage)\n".utf8))
        status = 2
    }
    exit(status)
} catch let error as Options.UsageError {
    FileHandle.standardError.write(Data("prefetchd \(command): \(error)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("prefetchd \(command): \(error)\n".utf8))
    exit(1)
}
