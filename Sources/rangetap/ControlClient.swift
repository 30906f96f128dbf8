import Foundation
import RangeTapSystem

/// One request to a local rangetap over its control socket (a Unix socket), the answer read to
/// the close: for `rangetap shape`, which must not itself go through a proxy or an HTTP stack.
enum ControlClient {
    /// The connection failed.
    struct Failure: Error {
        let reason: String
    }

    /// Sends `request` to the Unix socket at `path` and returns the status and body of the answer.
    static func exchange(socket path: String, request: [UInt8]) throws(Failure) -> (Int, String) {
        let answer: [UInt8]
        do throws(SocketExchangeError) {
            answer = try System.unixExchange(path: path, request: request, timeoutSeconds: 10, limit: 1 << 20)
        } catch {
            throw Failure(reason: error.description)
        }
        let text = String(decoding: answer, as: UTF8.self)
        guard text.hasPrefix("HTTP/"), let space = text.firstIndex(of: " "),
            let status = Int(text[text.index(after: space)...].prefix(3))
        else {
            throw Failure(reason: "it did not answer in HTTP")
        }
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, body)
    }
}
