"""The way rangetap's HTTP/2 test clients reach an origin through the proxy: CONNECT, then TLS
inside the tunnel with ALPN offering h2 (standard library only)."""
import socket, ssl, sys


def open_tunnel(proxy, connect, cafile, alpn=("h2", "http/1.1"), rcvbuf=0, timeout=30):
    """A TLS socket to CONNECT's HOST:PORT through the proxy at HOST:PORT, and its receive buffer.

    `rcvbuf`, when given, is set before connecting (the kernel then does not grow it). Exits with a
    message when the proxy refuses or closes during CONNECT."""
    host, port = proxy.rsplit(":", 1)
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    raw.settimeout(timeout)
    raw.connect((host, int(port)))
    # Without it, Nagle holds each WINDOW_UPDATE until the previous one is acknowledged (40 ms).
    raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    size = raw.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    raw.sendall(f"CONNECT {connect} HTTP/1.1\r\nHost: {connect}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = raw.recv(1)
        if not chunk:
            sys.exit("proxy closed during CONNECT")
        head += chunk
    if not head.startswith(b"HTTP/1.1 200"):
        sys.exit("CONNECT refused: " + head.decode("latin-1"))
    ctx = ssl.create_default_context(cafile=cafile)
    ctx.set_alpn_protocols(list(alpn))
    return ctx.wrap_socket(raw, server_hostname=connect.rsplit(":", 1)[0]), size


def open_h2(proxy, connect, cafile, timeout=30):
    """The socket an HTTP/2 client talks on: through the proxy's CONNECT and TLS (ALPN) when
    `connect` is given, else straight to the proxy (h2c with prior knowledge). Returns the
    socket, the ALPN protocol chosen (None for h2c) and the scheme to send."""
    if connect:
        sock, _ = open_tunnel(proxy, connect, cafile, timeout=timeout)
        return sock, sock.selected_alpn_protocol(), "https"
    host, port = proxy.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=timeout)
    # Without it, Nagle holds each WINDOW_UPDATE until the previous one is acknowledged (40 ms).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock, None, "http"
