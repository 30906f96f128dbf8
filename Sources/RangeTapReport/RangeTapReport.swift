/// Renderings of a ``RangeTapCore/CaptureAnalysis``: text, JSON, HTML waterfall, HAR.
public enum RangeTapReport {}
