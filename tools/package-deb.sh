#!/usr/bin/env bash
# Builds a Debian package of rangetap with dpkg-deb: the binary in /usr/bin, a man page for every
# subcommand, bash, zsh and fish completions, the README's shaping traces and example cache adapter
# in /usr/share/rangetap, the copyright file, and a Depends line computed by dpkg-shlibdeps from
# the libraries the binary links.
#
# Usage: tools/package-deb.sh [--binary PATH] [--output DIR] [--compression xz|gzip|none]
#   --binary PATH   package this binary instead of building one. Without it: `swift build -c release
#                   --product rangetap --static-swift-stdlib`.
#   --output DIR    where the .deb goes (default .build/deb)
#   --compression   dpkg-deb's compressor (default xz; the test suite uses none, it is faster)
# Prints the path of the .deb on stdout (progress goes to stderr).
#
# The package must run on a Debian machine without the Swift toolchain. The release build links the
# Swift runtime and Foundation statically, so it needs only Debian's libraries (libcurl4, libssl3, libstdc++6,
# libgcc-s1, libc6), all in Depends. A --binary that still loads libraries from outside any Debian
# package (a debug build loads libswiftCore.so, libFoundation.so, … from the toolchain) gets them
# shipped in /usr/lib/rangetap/, with its RUNPATH rewritten to find them there (patchelf) and not in
# the toolchain: the suite packages its debug build that way rather than spend minutes on a release
# build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/dist-lib.sh"

binary=""
output="$root/.build/deb"
compression=xz
while [ $# -gt 0 ]; do
  case $1 in
    --binary) [ $# -ge 2 ] || dist_die "--binary needs a path"; binary=$2; shift 2 ;;
    --binary=*) binary=${1#--binary=}; shift ;;
    --output) [ $# -ge 2 ] || dist_die "--output needs a directory"; output=$2; shift 2 ;;
    --output=*) output=${1#--output=}; shift ;;
    --compression) [ $# -ge 2 ] || dist_die "--compression needs xz, gzip or none"; compression=$2; shift 2 ;;
    --compression=*) compression=${1#--compression=}; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) dist_die "unknown argument $1 (see --help)" ;;
  esac
done
case $compression in xz|gzip|none) ;; *) dist_die "--compression is xz, gzip or none, not $compression" ;; esac
for tool in dpkg-deb dpkg-shlibdeps ldd; do
  command -v "$tool" >/dev/null 2>&1 || dist_die "$tool is missing: apt-get install dpkg-dev (tools/install-deps.sh installs it)"
done
# One checked-in Maintainer (DIST_MAINTAINER in tools/dist-lib.sh, DEB_MAINTAINER overrides it),
# never a placeholder address; refused before minutes of build rather than after.
maintainer=$(dist_maintainer)

if [ -z "$binary" ]; then
  binary=$(dist_release_build)
fi
[ -x "$binary" ] || dist_die "$binary is not an executable (build it, or pass --binary PATH)"
version=$("$binary" --version) || dist_die "$binary --version failed"
[[ $version =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || dist_die "$binary --version printed '$version', not a Debian version"
arch=$(dpkg --print-architecture)

work=$(mktemp -d "${TMPDIR:-/tmp}/rangetap-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage="$work/rangetap_${version}_$arch"
mkdir -p "$stage/DEBIAN" "$stage/usr/bin"
dist_strip "$binary" "$stage/usr/bin/rangetap"
chmod 755 "$stage/usr/bin/rangetap"

# Libraries that no Debian package provides (the toolchain's) go into the package. Which files
# Debian's packages own is asked of dpkg once, for every library and every spelling of its path
# (ldd's, the resolved one, with and without /usr: merged-/usr systems list either).
private="$stage/usr/lib/rangetap"
libraries=$(ldd "$binary" | awk '$2 == "=>" { print $1, $3 }')
if grep -q ' not$' <<<"$libraries" || grep -q ' $' <<<"$libraries"; then
  dist_die "$binary needs libraries ldd cannot find: $(awk '$2 == "not" || $2 == "" { print $1 }' <<<"$libraries" | xargs)"
fi
spellings() { local real; real=$(readlink -f "$1"); printf '%s\n' "$1" "$real" "${1#/usr}" "/usr${1#/usr}" "${real#/usr}" "/usr${real#/usr}"; }
owned=$(awk '{ print $2 }' <<<"$libraries" | while read -r path; do spellings "$path"; done | sort -u \
  | xargs dpkg -S 2>/dev/null | sed -n 's|^[^/]*: \(/.*\)$|\1|p' | sort -u || true)
shipped=()
while read -r name path; do
  known=0
  while read -r candidate; do grep -qxF -- "$candidate" <<<"$owned" && { known=1; break; }; done < <(spellings "$path")
  [ "$known" = 1 ] && continue
  mkdir -p "$private"
  install -m 644 "$(readlink -f "$path")" "$private/$name"
  shipped+=("$name")
done <<<"$libraries"
if [ ${#shipped[@]} -gt 0 ]; then
  command -v patchelf >/dev/null 2>&1 || dist_die "$binary loads ${shipped[*]} from outside Debian's packages; shipping them needs patchelf (apt-get install patchelf)"
  dist_log "shipping ${#shipped[@]} libraries no Debian package provides in /usr/lib/rangetap: ${shipped[*]}"
  patchelf --set-rpath '$ORIGIN/../lib/rangetap' "$stage/usr/bin/rangetap"
  for lib in "${shipped[@]}"; do patchelf --set-rpath '$ORIGIN' "$private/$lib"; done
elif command -v patchelf >/dev/null 2>&1 && [ -n "$(patchelf --print-rpath "$stage/usr/bin/rangetap")" ]; then
  # The toolchain's directory in the RUNPATH of a binary that loads nothing from it: dropped.
  patchelf --remove-rpath "$stage/usr/bin/rangetap"
fi

# Man pages (compressed, as Debian does) and completions where Debian's shells look for them.
dist_man_pages "$binary" "$work/man1"
mkdir -p "$stage/usr/share/man/man1"
for page in "$work"/man1/*.1; do gzip -9n < "$page" > "$stage/usr/share/man/man1/$(basename "$page").gz"; done
dist_completion "$binary" bash "$stage/usr/share/bash-completion/completions/rangetap"
dist_completion "$binary" zsh "$stage/usr/share/zsh/vendor-completions/_rangetap"
dist_completion "$binary" fish "$stage/usr/share/fish/vendor_completions.d/rangetap.fish"
mkdir -p "$stage/usr/share/doc/rangetap"
gzip -9n < "$root/README.md" > "$stage/usr/share/doc/rangetap/README.md.gz"
# The copyright file, uncompressed as policy 12.5 requires: rangetap's licence and those of
# everything linked into the binary (and of the toolchain libraries a --binary makes us ship).
dist_copyright "$stage/usr/share/doc/rangetap/copyright"
chmod 644 "$stage/usr/share/doc/rangetap/copyright"
# What the README's examples name besides the binary: /usr/share/rangetap/traces/*.trace and
# /usr/share/rangetap/cache-adapter-example.py.
share=$(dist_share_files)
while IFS=$'\t' read -r mode source name; do
  install -D -m "$mode" "$source" "$stage/usr/share/rangetap/$name"
done <<<"$share"

# Depends: what dpkg-shlibdeps derives from the symbols the binary (and any shipped library) uses,
# with the versions Debian's shlibs files give; the shipped libraries resolve inside the package.
mkdir -p "$work/shlibs/debian"
printf 'Source: rangetap\n\nPackage: rangetap\nArchitecture: any\n' > "$work/shlibs/debian/control"
elves=("$stage/usr/bin/rangetap")
for lib in "${shipped[@]}"; do elves+=("$private/$lib"); done
depends=$(cd "$work/shlibs" && dpkg-shlibdeps -O --ignore-missing-info -l"$private" "${elves[@]}" 2>"$work/shlibdeps.log" \
  | sed -n 's/^shlibs:Depends=//p') || { cat "$work/shlibdeps.log" >&2; dist_die "dpkg-shlibdeps failed"; }
[[ $depends == *libcurl4* ]] || { cat "$work/shlibdeps.log" >&2; dist_die "Depends has no libcurl4: '$depends'"; }

cat > "$stage/DEBIAN/control" <<CONTROL
Package: rangetap
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $depends
Section: net
Priority: optional
Description: HTTP recording proxy and range inspector
 A forward proxy that timestamps every range request, every chunk of a
 response as it arrives and every cancel, streaming and never buffering a
 whole response; inspects, exports, replays and serves its captures, and
 probes servers for Range and Keep-Alive conformance.
CONTROL

mkdir -p "$output"
deb="$(cd "$output" && pwd)/rangetap_${version}_$arch.deb"
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)} \
  dpkg-deb --root-owner-group -Z"$compression" --build "$stage" "$deb" >&2
dist_log "Depends: $depends"
echo "$deb"
