import RangeTapCore
import Testing

@Suite("UpstreamFailure")
struct UpstreamFailureTests {
    /// libcurl 7.88 rejects a 10 MB header line with "Out of memory" (27), which told the
    /// user nothing about the origin's oversized head.
    @Test func oversizedHeadIsNamedNotOutOfMemory() {
        for (code, message) in [
            (27, "Out of memory"), (100, "Too large"), (56, "Too large response headers: 307200 > 307200"),
        ] {
            let text = UpstreamFailure.describe(curlCode: code, message: message, headReceived: false)
            #expect(
                text.hasPrefix(
                    "the upstream's response head is larger than libcurl accepts (100 KB per header line, 300 KB for the whole head)"
                ), "\(text)")
            #expect(text.hasSuffix("(curl error \(code))"))
            #expect(text.contains(message))
        }
    }

    @Test func otherFailuresKeepLibcurlsWords() {
        #expect(
            UpstreamFailure.describe(curlCode: 7, message: "Couldn't connect to server", headReceived: false)
                == "Couldn't connect to server (curl error 7)")
        // Out of memory in the body is not about the head.
        #expect(
            UpstreamFailure.describe(curlCode: 27, message: "Out of memory", headReceived: true)
                == "Out of memory (curl error 27)")
    }
}
