import CMalloc
@_spi(CustomByteBufferAllocator) import NIOCore

/// A `ByteBufferAllocator` whose large buffers take memory only where they are written: a buffer
/// of 32 KiB or more gets an anonymous mapping of its own, so its pages are not
/// resident until something is written to them, and go back to the kernel when it is freed;
/// smaller ones come from malloc (`Sources/CMalloc/mapped_buffers.c`).
///
/// Why: swift-nio-ssl, which rangetap used for TLS until it moved to libssl (`TLSHandler`),
/// allocated a 32 KiB plaintext read buffer for every TLS connection from its channel's allocator
/// and kept it while the connection lived; from malloc it landed on pages earlier transfers had
/// touched, and all eight stayed resident. An intercepted tunnel whose client is offered HTTP/2
/// uses this allocator from the moment TLS starts (`TunnelStarter`), and keeps it if ALPN settles
/// on `h2`; over HTTP/1.1 the channel goes back to NIO's allocator. `TLSHandler` keeps no buffer
/// between reads, so what this allocator still maps are the channel's large buffers while they
/// live (socket reads of 32 KiB or more, an upload's plaintext).
///
/// What it costs: an `mmap`/`munmap` pair per large buffer.
///
/// Uses swift-nio's `CustomByteBufferAllocator` SPI (swift-nio 2.101).
enum MappedBufferAllocator {
    /// The allocator.
    static let allocator = ByteBufferAllocator(
        allocate: cmalloc_mapped_alloc,
        reallocate: cmalloc_mapped_realloc,
        deallocate: cmalloc_mapped_free,
        copy: cmalloc_copy
    )
}
