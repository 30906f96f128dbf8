import Foundation
import RangeTapCore
import RangeTapMedia
@testable import RangeTapReport
import RangeTapTestSupport
import Testing

/// Captures of origins with hostile `Content-Range` numbers analyse and render in every format
/// instead of trapping on "arithmetic overflow" (issue 10, item 1).
@Suite struct HostileNumbersReportTests {
    static let captures: [[HostileCapture.Exchange]] = [[.far], [.huge], [.ok, .far, .huge, .ok]]

    @Test(arguments: HostileNumbersReportTests.captures)
    func everyRenderingCompletes(_ exchanges: [HostileCapture.Exchange]) throws {
        let capture = try HostileCapture(exchanges)
        defer { capture.remove() }
        let analysis = try MediaAnalysis.analyze(path: capture.path, keepChunks: true)
        #expect(analysis.exchanges.count == exchanges.count)

        let text = TimelineText(colour: false).render(analysis)
        for e in exchanges { #expect(text.contains(e.path)) }
        let json = try InspectJSON(analysis, path: capture.path).encoded()
        #expect(try JSONSerialization.jsonObject(with: json) is [String: Any])
        let html = HTMLReport.render(analysis)
        #expect(html.contains("</html>"))
        let har = HARExport.render(analysis)
        #expect(try JSONSerialization.jsonObject(with: har) is [String: Any])
    }

    @Test func bytesPastTheLargestOffsetAreAFindingNotASpan() throws {
        let capture = try HostileCapture([.far])
        defer { capture.remove() }
        let analysis = try MediaAnalysis.analyze(path: capture.path)
        let e = try #require(analysis.exchanges.first)
        #expect(e.resourceSpan == nil)
        #expect(
            e.findings.contains {
                $0.code == FindingCode.contentRangeInvalid.rawValue && $0.message.contains("9223372036854775806")
            })
    }

    @Test func aLengthNearInt64MaxLabelsTheAxis() throws {
        let capture = try HostileCapture([.huge])
        defer { capture.remove() }
        let analysis = try MediaAnalysis.analyze(path: capture.path, keepChunks: true)
        #expect(analysis.resources.first?.length == Int64.max)
        let html = HTMLReport.render(analysis)
        #expect(html.contains("9223372036854775807 B"))
        let ticks = AxisScale(lower: 0, upper: Double(Int64.max), pixelStart: 300, pixelEnd: 0).byteTicks()
        #expect(!ticks.isEmpty)
        // Times near the top of Int64 (ms values where a tiny step is below a Double's precision).
        let late = Double(Int64.max) / 1e6
        #expect(!AxisScale(lower: late, upper: late + 0.015, pixelStart: 0, pixelEnd: 900).decimalTicks().isEmpty)
        #expect(ReportFormat.number(Double(Int64.max) * 4) == "9223372036854775807")
        #expect(ReportFormat.clamped(.nan) == 0)
    }
}
