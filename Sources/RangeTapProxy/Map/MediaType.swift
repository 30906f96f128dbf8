/// The Content-Type a file is served with, by its extension, as nginx's `mime.types` gives the
/// ones players fetch; `application/octet-stream` for the rest.
enum MediaType {
    private static let byExtension: [String: String] = [
        "mp4": "video/mp4", "m4v": "video/mp4", "m4s": "video/iso.segment", "m4a": "audio/mp4",
        "mov": "video/quicktime",
        "ts": "video/mp2t", "aac": "audio/aac", "mp3": "audio/mpeg", "webm": "video/webm", "mkv": "video/x-matroska",
        "m3u8": "application/vnd.apple.mpegurl", "mpd": "application/dash+xml", "vtt": "text/vtt",
        "json": "application/json", "txt": "text/plain", "html": "text/html", "js": "application/javascript",
        "css": "text/css", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg",
        "bin": "application/octet-stream",
    ]

    /// The type of the file at `path`.
    static func of(path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "application/octet-stream" }
        return byExtension[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
