#if canImport(Glibc)
import Glibc
#endif
import NIOCore
@_spi(Reflection) import Swift
import Synchronization

/// The file descriptor behind a NIO socket channel, which NIO does not make public.
///
/// Found through the runtime's field metadata (`BaseSocketChannel.socket` → `BaseSocket.descriptor`)
/// and accepted only if it is a TCP socket whose peer and local ports are the channel's own;
/// otherwise nil and the caller goes without (``ClientWire`` then relies on the readings its
/// handler takes).
///
/// Each field's offset is looked up once per class (`_forEachField`, the metadata `Mirror` reads)
/// and the fields are then read in place: `Mirror` boxed every stored property of the channel
/// into an `Any` on each connection, 8 % of the event loop's CPU on fresh connections.
enum SocketDescriptor {
    static func of(_ channel: any Channel) -> Int32? {
        guard let fd = descriptor(of: channel), fd >= 0,
              let remotePort = channel.remoteAddress?.port, let localPort = channel.localAddress?.port
        else { return nil }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let peer = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard peer == 0, port(of: storage) == remotePort else { return nil }
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let local = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard local == 0, port(of: storage) == localPort else { return nil }
        return fd
    }

    private static func port(of storage: sockaddr_storage) -> Int? {
        var s = storage
        switch Int32(s.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &s) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) } }
        case AF_INET6:
            return withUnsafePointer(to: &s) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) } }
        default:
            return nil
        }
    }

    /// `channel.socket.descriptor`, read at the offsets the runtime gives for those fields.
    private static func descriptor(of channel: any Channel) -> Int32? {
        let object: AnyObject = channel
        guard let socketOffset = offset(of: "socket", in: type(of: object), isReference: true) else { return nil }
        let channelAddress = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
        // A strong reference is a pointer to the object; the channel keeps it alive meanwhile.
        guard let socketAddress = channelAddress.load(fromByteOffset: socketOffset, as: UnsafeRawPointer?.self) else { return nil }
        let socket = Unmanaged<AnyObject>.fromOpaque(socketAddress).takeUnretainedValue()
        guard let descriptorOffset = offset(of: "descriptor", in: type(of: socket), isReference: false) else { return nil }
        return socketAddress.load(fromByteOffset: descriptorOffset, as: Int32.self)
    }

    private struct FieldKey: Hashable {
        let type: ObjectIdentifier
        let name: String
    }

    /// Offsets found so far (nil: the class has no such field of the expected kind).
    private static let offsets = Mutex<[FieldKey: Int?]>([:])

    /// The offset from the object's start of stored property `name` of class `type` (or of a
    /// superclass): a class reference when `isReference`, else an `Int32`.
    private static func offset(of name: String, in type: Any.Type, isReference: Bool) -> Int? {
        let key = FieldKey(type: ObjectIdentifier(type), name: name)
        if let known = offsets.withLock({ $0[key] }) { return known }
        var found: Int?
        // `.classType` (a `static var`, which strict concurrency refuses to read) is bit 0.
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1 << 0)) { fieldName, offset, fieldType, _ in
            guard String(cString: fieldName) == name else { return true }
            let fits = isReference ? fieldType is AnyObject.Type : fieldType == Int32.self
            if fits { found = offset }
            return false
        }
        offsets.withLock { $0[key] = found }
        return found
    }
}
