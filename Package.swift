// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "prefetchd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "prefetchd", targets: ["prefetchd"]),
        // Readers link this to find cache entries without knowing the layout.
        .library(name: "PrefetchCache", targets: ["PrefetchCache"]),
    ],
    targets: [
        // Thin C layers: module maps and typed shims, no logic.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // setjmp-based libjpeg paths must live in C: Swift cannot catch a longjmp.
        .target(name: "CImageProbe", dependencies: ["CJPEG", "CPNG"]),

        // Pure Swift: job model, keys, outcomes, classification. No servers, no C.
        .target(name: "PrefetchCore"),
        .target(name: "PrefetchCache", dependencies: ["PrefetchCore", "CCrypto"]),
        .target(name: "PrefetchRedis", dependencies: ["PrefetchCore", "CHiredis", "CCrypto"]),
        .target(name: "PrefetchHTTP", dependencies: ["PrefetchCore", "PrefetchCache", "CCurl"]),
        .target(name: "PrefetchImage", dependencies: ["CPNG", "CJPEG", "CImageProbe"]),
        .target(
            name: "PrefetchWorker",
            dependencies: ["PrefetchCore", "PrefetchCache", "PrefetchRedis", "PrefetchHTTP", "PrefetchImage"]
        ),
        .executableTarget(name: "prefetchd", dependencies: ["PrefetchWorker", "PrefetchCache", "PrefetchImage"]),
        // Measures verification and thumbnail costs: scripts/bench-image.sh.
        .executableTarget(name: "prefetchd-imagebench", dependencies: ["PrefetchImage", "CImageProbe"]),

        // A test tool: several of these hammer one cache directory at once in the cache tests.
        .executableTarget(name: "cache-stress", dependencies: ["PrefetchCache"], path: "Tests/CacheStress"),
        .target(name: "PrefetchTestSupport", dependencies: ["PrefetchRedis", "PrefetchCore"], path: "Tests/PrefetchTestSupport"),
        .testTarget(name: "PrefetchCoreTests", dependencies: ["PrefetchCore", "PrefetchCache", "PrefetchRedis", "PrefetchHTTP", "PrefetchImage"]),
        .testTarget(name: "PrefetchImageTests", dependencies: ["PrefetchImage"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "PrefetchIntegrationTests",
            dependencies: ["PrefetchWorker", "PrefetchTestSupport", "PrefetchRedis", "PrefetchCache"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
