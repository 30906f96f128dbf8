import CMalloc
@_spi(CustomByteBufferAllocator) import NIOCore

/// A `ByteBufferAllocator` whose large buffers take memory only where they are written: a buffer
/// of ``threshold`` bytes or more gets an anonymous mapping of its own, so its pages are not
/// resident until something is written to them, and go back to the kernel when it is freed;
/// smaller ones come from malloc (`Sources/CMalloc/mapped_buffers.c`).
///
/// Why: `NIOSSLHandler` (swift-nio-ssl 2.37) allocates a 32 KiB plaintext read buffer for every
/// TLS connection from its channel's allocator and keeps it while the connection lives. A client
/// reading a player's responses sends a few hundred bytes at a time, so only the first page of it
/// is ever written; but from malloc the buffer often lands on pages that earlier transfers'
/// buffers touched, and all eight of them stay resident. An intercepted tunnel's channel uses
/// this allocator while TLS starts (`TunnelStarter`): about 8 KiB less per idle HTTP/2
/// connection after large bodies (docs/performance.md).
///
/// What it costs: an `mmap`/`munmap` pair per large buffer, which is why only TLS's start and
/// HTTP/2 connections use it (their large buffers are made once per connection); an HTTP/1.1
/// tunnel goes back to the default allocator once ALPN has settled, because NIOSSL's outbound
/// buffer, 32 KiB there, is made afresh for each flush while the socket still holds the last.
///
/// Uses swift-nio's `CustomByteBufferAllocator` SPI (swift-nio 2.101).
enum MappedBufferAllocator {
    /// The size from which a buffer gets a mapping of its own: 32 KiB.
    static let threshold = Int(cmalloc_mapped_threshold())

    /// The allocator.
    static let allocator = ByteBufferAllocator(
        allocate: cmalloc_mapped_alloc,
        reallocate: cmalloc_mapped_realloc,
        deallocate: cmalloc_mapped_free,
        copy: cmalloc_copy
    )
}
