import RangeTapCore

/// One variant stream of an HLS master playlist: an `EXT-X-STREAM-INF` or an
/// `EXT-X-I-FRAME-STREAM-INF`.
public struct HLSVariant: Sendable, Equatable {
    /// A picture size (`RESOLUTION`).
    public struct Resolution: Sendable, Equatable, CustomStringConvertible {
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// Creates a resolution.
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
        /// `1280x720`.
        public var description: String { "\(width)x\(height)" }
    }

    /// Absolute URL of the variant's media playlist, without fragment.
    public var uri: String
    /// Peak bit rate (`BANDWIDTH`), bits per second.
    public var bandwidth: Int
    /// Average bit rate (`AVERAGE-BANDWIDTH`), bits per second.
    public var averageBandwidth: Int?
    /// Picture size (`RESOLUTION`).
    public var resolution: Resolution?
    /// The `CODECS` list as written.
    public var codecs: String?
    /// Frames per second (`FRAME-RATE`).
    public var frameRate: Double?
    /// True for an `EXT-X-I-FRAME-STREAM-INF` (a playlist of key frames, for trick play).
    public var isIFrameOnly: Bool
    /// The `AUDIO` rendition group the variant plays with.
    public var audioGroup: String?
    /// The `VIDEO` rendition group the variant plays with.
    public var videoGroup: String?
    /// Display name, e.g. `1280x720 2.1 Mb/s`, `audio 128 kb/s`, `1280x720 300 kb/s I-frames`.
    public var name: String

    /// Creates a variant.
    public init(
        uri: String, bandwidth: Int, averageBandwidth: Int? = nil, resolution: Resolution? = nil, codecs: String? = nil,
        frameRate: Double? = nil, isIFrameOnly: Bool = false, audioGroup: String? = nil, videoGroup: String? = nil,
        name: String
    ) {
        self.uri = uri
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.resolution = resolution
        self.codecs = codecs
        self.frameRate = frameRate
        self.isIFrameOnly = isIFrameOnly
        self.audioGroup = audioGroup
        self.videoGroup = videoGroup
        self.name = name
    }
}
