import CMalloc
@_spi(CustomByteBufferAllocator) import NIOCore

/// A `ByteBufferAllocator` whose large buffers take memory only where they are written: a buffer
/// of 32 KiB or more gets an anonymous mapping of its own, so its pages are not
/// resident until something is written to them, and go back to the kernel when it is freed;
/// smaller ones come from malloc (`Sources/CMalloc/mapped_buffers.c`).
///
/// Why: `NIOSSLHandler` (swift-nio-ssl 2.37) allocates a 32 KiB plaintext read buffer for every
/// TLS connection from its channel's allocator and keeps it while the connection lives. A client
/// reading a player's responses sends a few hundred bytes at a time, so only the first page of it
/// is ever written; but from malloc the buffer often lands on pages that earlier transfers'
/// buffers touched, and all eight of them stay resident. An intercepted tunnel whose client is
/// offered HTTP/2 uses this allocator from the moment TLS starts (`TunnelStarter`), and keeps it
/// if ALPN settles on `h2`; over HTTP/1.1 the channel goes back to NIO's allocator. With the
/// narrowed ``TLSWriteBudget`` and ``RoundBufferPool``: 84 → 59 KiB per idle HTTP/2 connection
/// after 1 MiB bodies (docs/performance.md).
///
/// What it costs: an `mmap`/`munmap` pair per large buffer. Over HTTP/2 the channel's large
/// buffers are made once per connection: NIOSSL's outbound buffer stays at 16 KiB there (one
/// record a flush), a buffer from malloc stays in malloc as it grows, and NIOSSL replaces its
/// plaintext buffer only when the one it passed on is still held (reads over 4 KiB, which
/// `H2ReadCopier` does not copy: uploads). A tunnel offered `h2` that settles on HTTP/1.1 keeps
/// this allocator for the buffers made during the handshake: NIOSSL's outbound buffer, 32 KiB
/// there, then gets a mapping of its own each time it is made afresh while the socket still holds
/// the last (a slow client).
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
