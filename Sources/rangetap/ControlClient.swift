import Foundation
import RangeTapSystem

/// One request to a local rangetap over a plain TCP socket, the answer read to the close: for
/// `rangetap shape`, which must not itself go through a proxy or an HTTP stack.
enum ControlClient {
    /// The connection failed.
    struct Failure: Error {
        let reason: String
    }

    /// Sends `request` to `host:port` (numeric) and returns the status and body of the answer.
    static func exchange(host: String, port: Int, request: [UInt8]) throws(Failure) -> (Int, String) {
        let answer: [UInt8]
        do throws(TCPExchangeError) {
            answer = try System.tcpExchange(
                host: host, port: port, request: request, timeoutSeconds: 10, limit: 1 << 20)
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
