import ArgumentParser
import Foundation
import RangeTapCore
import RangeTapProxy

/// `rangetap shape`: change the shaping of a running `record --shape` (a network drop in the
/// middle of playback), or say what is in force.
struct ShapeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shape",
        abstract: "Change the link of a running `record --shape`, or print the one in force.",
        discussion: """
            Examples: rangetap shape --listen 127.0.0.1:8080 rate=500kbit,latency=200ms; \
            rangetap shape --listen 127.0.0.1:8080 off; rangetap shape --listen 127.0.0.1:8080 (print). \
            The scope (link or connection) stays what record started with.
                Exit status: 0, 1 when no record runs there or it refused, 2 on a bad spec.
            """
    )

    @Option(
        name: .long,
        help:
            "The address record listens on, HOST:PORT or PORT: its port names the run's control socket (in $XDG_RUNTIME_DIR/rangetap, else /tmp/rangetap-UID)."
    )
    var listen: String = "127.0.0.1:8080"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The run's control token. Default: the one record wrote for that port (in $XDG_RUNTIME_DIR/rangetap, else /tmp/rangetap-UID).",
            valueName: "TOKEN"))
    var token: String?

    @Argument(
        help: ArgumentHelp(
            "The new link: rate=, latency=, jitter= (as record --shape), or off. None: print the link in force.",
            valueName: "SPEC"))
    var spec: String?

    func validate() throws {
        _ = try ListenAddress(listen)
        if let spec {
            do { _ = try ShapeSpec(parsing: spec) } catch { throw ValidationError("\(spec): \(error)") }
        }
    }

    func run() throws {
        let address = try ListenAddress(listen)
        guard let token = token ?? ControlToken.read(port: address.port) else {
            throw CommandFailure(
                message:
                    "no control token for port \(address.port) in \(ControlToken.path(port: address.port)): is `rangetap record` running there as this user? (else pass --token)",
                status: .failure)
        }
        var target = "http://\(LinkControlRequest.host)/shape"
        if let spec {
            target += "?" + (spec.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? spec)
        }
        let request =
            "POST \(target) HTTP/1.1\r\nHost: \(LinkControlRequest.host)\r\nContent-Type: \(LinkControlRequest.contentType)\r\n\(LinkControlRequest.tokenField): \(token)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        let socket = ControlToken.socketPath(port: address.port)
        do {
            let (status, body) = try ControlClient.exchange(socket: socket, request: Array(request.utf8))
            let text = body.trimmingCharacters(in: .whitespacesAndNewlines)
            if status == 200 {
                print(spec == nil ? text : "rangetap: link now \(text)")
            } else {
                throw CommandFailure(
                    line: text.hasPrefix("rangetap:") ? text : "rangetap: \(status) \(text)",
                    status: status == 400 ? .badInput : .failure)
            }
        } catch let error as ControlClient.Failure {
            throw CommandFailure(
                message:
                    "cannot reach the record listening on \(address.authority(port: address.port)) through \(socket): \(error.reason) (is `rangetap record --shape …` running there, as this user, on this machine?)",
                status: .failure)
        }
    }
}
