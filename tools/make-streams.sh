#!/usr/bin/env bash
# Generates adaptive-streaming test media from ffmpeg's test sources (nothing is downloaded)
# into DIR, 12 s of testsrc + a tone, a keyframe every 2 s:
#   hls-fmp4/index.m3u8   HLS, fMP4 in one file (media.mp4) addressed by EXT-X-BYTERANGE, with EXT-X-MAP
#   hls-ts/master.m3u8    HLS master with two renditions (320x180 300k, 640x360 900k) of MPEG-TS segment files
#   dash/manifest.mpd     DASH, SegmentTemplate with SegmentTimeline, one video and one audio representation
#   dash-single/manifest.mpd  DASH, one file per representation, SegmentBase with indexRange (sidx)
# Existing directories are kept.
set -euo pipefail
dir=${1:?usage: make-streams.sh DIR}
mkdir -p "$dir"
src=(-hide_banner -loglevel error -y -f lavfi -i testsrc=duration=12:size=640x360:rate=25
     -f lavfi -i sine=frequency=440:duration=12)
x264=(-c:v libx264 -preset ultrafast -g 50 -keyint_min 50 -sc_threshold 0)
make() {
    local name=$1; shift
    [ -d "$dir/$name" ] && return 0
    rm -rf "$dir/$name.tmp" && mkdir -p "$dir/$name.tmp"
    (cd "$dir/$name.tmp" && ffmpeg "${src[@]}" "$@")
    mv "$dir/$name.tmp" "$dir/$name"
}
make hls-fmp4 -map 0:v -map 1:a "${x264[@]}" -b:v 800k -c:a aac -b:a 64k -f hls -hls_time 2 \
    -hls_playlist_type vod -hls_segment_type fmp4 -hls_flags single_file \
    -hls_fmp4_init_filename init.mp4 -hls_segment_filename media.mp4 index.m3u8
make hls-ts -map 0:v -map 0:v "${x264[@]}" -s:v:0 320x180 -b:v:0 300k -s:v:1 640x360 -b:v:1 900k \
    -f hls -hls_time 2 -hls_playlist_type vod -var_stream_map "v:0 v:1" -master_pl_name master.m3u8 \
    -hls_segment_filename 'v%v_%03d.ts' 'v%v.m3u8'
make dash -map 0:v -map 1:a "${x264[@]}" -b:v 800k -c:a aac -b:a 64k -f dash -seg_duration 2 \
    -use_timeline 1 -use_template 1 manifest.mpd
make dash-single -map 0:v -map 1:a "${x264[@]}" -b:v 800k -c:a aac -b:a 64k -f dash -seg_duration 2 \
    -single_file 1 manifest.mpd
# dash-base/manifest.mpd: DASH SegmentBase (ffmpeg's dash muxer does not write one): a fragmented
# MP4 with a global sidx, and an MPD whose Initialization range and indexRange are read off its boxes.
if [ ! -d "$dir/dash-base" ]; then
    rm -rf "$dir/dash-base.tmp" && mkdir -p "$dir/dash-base.tmp"
    ffmpeg "${src[@]}" -map 0:v "${x264[@]}" -b:v 800k -movflags +dash+global_sidx -frag_duration 2000000 "$dir/dash-base.tmp/video.mp4"
    python3 - "$dir/dash-base.tmp" <<'PY'
import struct, sys
d = sys.argv[1]
data = open(d + "/video.mp4", "rb").read()
at, boxes = 0, {}
while at + 8 <= len(data):
    size, kind = struct.unpack(">I4s", data[at:at + 8])
    boxes.setdefault(kind.decode(), (at, at + size))
    at += size
init_end = boxes["moov"][1] - 1
sidx = boxes["sidx"]
open(d + "/manifest.mpd", "w").write(f"""<?xml version="1.0" encoding="utf-8"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT12.0S" minBufferTime="PT4.0S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">
  <Period id="0" start="PT0.0S">
    <AdaptationSet contentType="video" mimeType="video/mp4" segmentAlignment="true">
      <Representation id="v800" codecs="avc1.f4001e" bandwidth="800000" width="640" height="360">
        <BaseURL>video.mp4</BaseURL>
        <SegmentBase indexRange="{sidx[0]}-{sidx[1] - 1}"><Initialization range="0-{init_end}"/></SegmentBase>
      </Representation>
    </AdaptationSet>
  </Period>
</MPD>
""")
PY
    mv "$dir/dash-base.tmp" "$dir/dash-base"
fi
