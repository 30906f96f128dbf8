#!/usr/bin/env bash
# Installs rangetap under a prefix: the binary, a man page for every subcommand, bash, zsh and
# fish completions, each where its reader looks under that prefix, the files the README's examples
# use and the licences of everything in the binary:
#   PREFIX/bin/rangetap
#   PREFIX/share/man/man1/rangetap.1, rangetap-record.1, rangetap-ca-init.1, …
#   PREFIX/share/bash-completion/completions/rangetap
#   PREFIX/share/zsh/site-functions/_rangetap
#   PREFIX/share/fish/vendor_completions.d/rangetap.fish
#   PREFIX/share/rangetap/traces/*.trace, PREFIX/share/rangetap/cache-adapter-example.py
#   PREFIX/share/doc/rangetap/copyright
#
# Usage: tools/install.sh [--prefix DIR] [--binary PATH] [--debug-symbols]
#   --prefix DIR    where to install (default /usr/local)
#   --debug-symbols also install the binary's debug symbols, apart, by its build ID:
#                   PREFIX/lib/debug/.build-id/NN/REST.debug (gdb: set debug-file-directory)
#   --binary PATH   install this binary instead of building one (the man pages and completions are
#                   generated from it). Without it: `swift build -c release --product rangetap
#                   --static-swift-stdlib`, a binary that does not need the Swift toolchain to run.
#
# Writes nothing outside PREFIX but the build in .build/. Prints every file it installs on stdout.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/dist-lib.sh"

prefix=/usr/local
binary=""
debug_symbols=false
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) [ $# -ge 2 ] || dist_die "--prefix needs a directory"; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#--prefix=}; shift ;;
    --binary) [ $# -ge 2 ] || dist_die "--binary needs a path"; binary=$2; shift 2 ;;
    --binary=*) binary=${1#--binary=}; shift ;;
    --debug-symbols) debug_symbols=true; shift ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) dist_die "unknown argument $1 (see --help)" ;;
  esac
done
[ -n "$prefix" ] || dist_die "--prefix is empty"
case $prefix in /*) ;; *) prefix="$PWD/$prefix" ;; esac

if [ -z "$binary" ]; then
  binary=$(dist_release_build)
fi
[ -x "$binary" ] || dist_die "$binary is not an executable (build it, or pass --binary PATH)"
"$binary" --version >/dev/null || dist_die "$binary --version failed: is it rangetap, and can it find its libraries?"

# Generated first, into a scratch directory, so that a failure installs nothing.
stage=$(mktemp -d "${TMPDIR:-/tmp}/rangetap-install.XXXXXX")
trap 'rm -rf "$stage"' EXIT
dist_man_pages "$binary" "$stage/man1"
dist_completion "$binary" bash "$stage/rangetap.bash"
dist_completion "$binary" zsh "$stage/_rangetap"
dist_completion "$binary" fish "$stage/rangetap.fish"
# The notices and licence texts the binary's Apache-licensed parts ask to be passed on with it, in
# Debian's machine-readable format, the same file the .deb has.
dist_copyright "$stage/copyright"
share=$(dist_share_files)

put() { # put MODE SOURCE DESTINATION
  install -D -m "$1" "$2" "$3" || dist_die "cannot write $3 (is $prefix writable? try another --prefix)"
  echo "$3"
}
dist_strip "$binary" "$stage/rangetap"
put 755 "$stage/rangetap" "$prefix/bin/rangetap"
if $debug_symbols; then
  symbols=$(dist_debug_symbols "$binary" "$stage/debug")
  put 644 "$symbols" "$prefix/lib/debug/${symbols#"$stage/debug/"}"
fi
for page in "$stage"/man1/*.1; do put 644 "$page" "$prefix/share/man/man1/$(basename "$page")"; done
put 644 "$stage/rangetap.bash" "$prefix/share/bash-completion/completions/rangetap"
put 644 "$stage/_rangetap" "$prefix/share/zsh/site-functions/_rangetap"
put 644 "$stage/rangetap.fish" "$prefix/share/fish/vendor_completions.d/rangetap.fish"
while IFS=$'\t' read -r mode source name; do put "$mode" "$source" "$prefix/share/rangetap/$name"; done <<<"$share"
put 644 "$stage/copyright" "$prefix/share/doc/rangetap/copyright"

# A binary that still loads the Swift runtime from the toolchain (a debug build, or one built
# without --static-swift-stdlib) runs only where that toolchain is.
if command -v ldd >/dev/null 2>&1 && ldd "$prefix/bin/rangetap" 2>/dev/null | grep -q 'libswiftCore'; then
  dist_log "note: $prefix/bin/rangetap loads the Swift runtime from $(ldd "$prefix/bin/rangetap" | awk '/libswiftCore/ {print $3}' | xargs dirname); it needs that toolchain to run"
fi
dist_log "installed rangetap $("$prefix/bin/rangetap" --version) under $prefix"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) dist_log "$prefix/bin is not on PATH: run $prefix/bin/rangetap, or add it to PATH" ;; esac
if ! man -w rangetap-record >/dev/null 2>&1 || [ "$(man -w rangetap-record 2>/dev/null)" != "$prefix/share/man/man1/rangetap-record.1" ]; then
  dist_log "man finds pages under $prefix/share/man only if it is on its path: MANPATH=$prefix/share/man: man rangetap-record"
fi
