#!/usr/bin/env bash
# Generates test media from ffmpeg's test sources (nothing is downloaded) into DIR:
#   moov-at-end.mp4  index after the media data: players read the start, seek to the end, come back
#   faststart.mp4    index first
#   fragmented.mp4   fragmented MP4 (players open many short connections on it)
# 20 s of 640x360 testsrc + a 440 Hz tone, about 3 MB each. Existing files are kept.
set -euo pipefail
dir=${1:?usage: make-media.sh DIR}
mkdir -p "$dir"
src=(-hide_banner -loglevel error -y -f lavfi -i testsrc=duration=20:size=640x360:rate=25
     -f lavfi -i sine=frequency=440:duration=20 -c:v libx264 -preset ultrafast -b:v 3M -g 25
     -c:a aac -b:a 64k -shortest)
make() { [ -s "$dir/$1" ] || ffmpeg "${src[@]}" "${@:2}" "$dir/$1.tmp.mp4" && { [ -s "$dir/$1" ] || mv "$dir/$1.tmp.mp4" "$dir/$1"; }; }
make moov-at-end.mp4
make faststart.mp4 -movflags +faststart
make fragmented.mp4 -movflags +frag_keyframe+empty_moov

# MP4 index tests
#   dash-sidx.mp4    fragmented per keyframe, with a top-level sidx per track (DASH on-demand)
make dash-sidx.mp4 -movflags +dash+global_sidx
#   bframes.mp4, bframes-fragmented.mp4   with B-frames: composition offsets (ctts, trun), and
#                    an edit list shifting presentation to 0 in the unfragmented one
make bframes.mp4 -bf 2 -movflags +faststart
make bframes-fragmented.mp4 -bf 2 -movflags +frag_keyframe+empty_moov
