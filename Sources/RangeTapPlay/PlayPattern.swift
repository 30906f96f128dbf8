/// How a scripted player fetches a resource.
public enum PlayPattern: String, Sendable, Hashable, Codable, CaseIterable {
    /// AVPlayer over HTTP: a `bytes=0-1` probe, an open-ended request cancelled once enough
    /// arrived, a resume further on, a seek to about 60 % (cancel, new open-ended request) and
    /// the last 64 KiB.
    case avplayer
    /// One `bytes=0-` request read to the end.
    case linear
    /// A probe, then five seeks to seeded pseudo-random positions, each cancelled after a read.
    case seeky

    /// One line saying what the pattern sends.
    public var summary: String {
        switch self {
        case .avplayer:
            "probe bytes=0-1, open-ended bytes=0- cancelled, resume, seek to ~60% (cancel + bytes=P-), last 64 KiB"
        case .linear: "bytes=0- read to the end"
        case .seeky: "probe bytes=0-1, then 5 seeded seeks, each cancelled after a read"
        }
    }
}
