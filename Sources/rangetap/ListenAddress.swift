import ArgumentParser
import RangeTapCore

/// `HOST:PORT`, `:PORT` or `PORT` (host 127.0.0.1); `[::1]:PORT` for IPv6.
struct ListenAddress {
    var host: String
    var port: Int

    /// The address of `--listen TEXT` or `-p PORT` (127.0.0.1:PORT), else `defaultText`.
    init(listen: String?, port: Int?, default defaultText: String) throws {
        switch (listen, port) {
        case (_?, _?):
            throw ValidationError("give --listen HOST:PORT or -p PORT, not both")
        case (nil, let port?):
            guard (0...65535).contains(port) else {
                throw ValidationError("-p \(port): expected a TCP port, 1-65535 (0 picks a free one)")
            }
            try self.init("127.0.0.1:\(port)")
        case (let text, nil):
            try self.init(text ?? defaultText)
        }
    }

    init(_ text: String) throws {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if let colon = text.lastIndex(of: ":") {
            let h = text[..<colon]
            if !h.isEmpty { host = String(h.hasPrefix("[") && h.hasSuffix("]") ? h.dropFirst().dropLast() : h) }
            portText = text[text.index(after: colon)...]
        }
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw ValidationError(
                "--listen \(text): expected HOST:PORT such as 127.0.0.1:8080 (port 0 picks a free one)")
        }
        self.host = host
        self.port = port
    }

    /// `HOST:PORT` as a URL writes it: an IPv6 host in brackets (`[::1]:8080`), so
    /// `curl -x http://[::1]:8080` works where `http://::1:8080` does not.
    func authority(port: Int) -> String {
        URLAuthority.hostForURL(host) + ":\(port)"
    }
}
