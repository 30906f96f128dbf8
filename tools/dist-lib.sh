# Shared helpers of tools/install.sh and tools/package-deb.sh (source it; needs $root, the
# repository). Nothing here writes outside the directories it is given and $root/.build.

# shellcheck source=tools/release-build.sh
. "$root/tools/release-build.sh"

dist_log() { echo "$(basename "$0"): $*" >&2; }
dist_die() { dist_log "$*"; exit 1; }

# dist_release_build: the release build of the rangetap product with the Swift runtime linked in
# statically (--static-swift-stdlib), so the binary needs only Debian's libraries (libcurl, libstdc++,
# glibc) and not the toolchain's. Prints the binary's path.
dist_release_build() {
  dist_log "swift build -c release --product rangetap --static-swift-stdlib (several minutes)"
  local start=$SECONDS bin
  bin=$(release_build "$root") || dist_die "the release build failed"
  dist_log "release build took $((SECONDS - start)) s"
  echo "$bin"
}

# dist_strip SOURCE DESTINATION: a copy of the binary without its symbol table and debug
# sections (what an installed or packaged program carries; the build keeps its own for profiling).
dist_strip() {
  command -v strip >/dev/null 2>&1 || dist_die "strip is missing: apt-get install binutils"
  mkdir -p "$(dirname "$2")"
  strip --strip-all -o "$2" "$1" || dist_die "strip $1 failed"
}

# dist_manual_tool: swift-argument-parser's own man page generator (Tools/generate-manual in the
# checkout of the dependency, the tool its `generate-manual` command plugin runs), built once in
# its own scratch directory so that it never waits for, nor invalidates, the package's builds
# (a running `swift test` holds the lock of .build). Prints the tool's path.
dist_manual_tool() {
  local parser="$root/.build/checkouts/swift-argument-parser" scratch="$root/.build/manual-tool"
  if [ ! -f "$parser/Package.swift" ]; then
    (cd "$root" && swift package resolve >&2) || dist_die "swift package resolve failed"
  fi
  [ -f "$parser/Package.swift" ] || dist_die "no swift-argument-parser checkout in $parser"
  local tool="$scratch/debug/generate-manual"
  if [ ! -x "$tool" ]; then
    dist_log "building swift-argument-parser's generate-manual (once, in $scratch)"
    local start=$SECONDS
    swift build --package-path "$parser" --scratch-path "$scratch" --product generate-manual >&2 \
      || dist_die "building generate-manual failed"
    dist_log "generate-manual built in $((SECONDS - start)) s"
  fi
  echo "$tool"
}

# dist_man_pages BINARY DIR: one man page per command (rangetap.1, rangetap-record.1,
# rangetap-ca-init.1, …, rangetap-help.1) generated from BINARY's own help (--experimental-dump-help), dated by the
# last commit so that the same sources give the same pages.
dist_man_pages() {
  local binary=$1 dir=$2 tool date
  tool=$(dist_manual_tool)
  date=$(git -C "$root" log -1 --format=%cs 2>/dev/null || date -u +%F)
  mkdir -p "$dir"
  local raw="$dir/.generated"
  rm -rf "$raw"; mkdir -p "$raw"
  "$tool" "$binary" --multi-page --date "$date" --output-directory "$raw" >&2 \
    || dist_die "generate-manual failed on $binary"
  # generate-manual names a subcommand's page rangetap.ca.init.1; man's convention (git-commit.1)
  # is rangetap-ca-init.1, in the file name, the title (.Dt) and the cross-references (.Xr).
  local page name
  for page in "$raw"/*.1; do
    name=$(basename "$page"); name="${name%.1}"
    perl -pe 's{^(\.Dt |\.Xr )(\S+)}{$1 . ($2 =~ tr/./-/r)}e' "$page" > "$dir/${name//./-}.1"
  done
  rm -rf "$raw"
  [ -f "$dir/rangetap.1" ] && [ -f "$dir/rangetap-record.1" ] || dist_die "generate-manual wrote no rangetap-record.1 in $dir"
}

# dist_completion BINARY SHELL FILE: the completion script argument-parser generates for SHELL.
dist_completion() {
  local binary=$1 shell=$2 file=$3
  mkdir -p "$(dirname "$file")"
  "$binary" --generate-completion-script "$shell" > "$file" || dist_die "$binary --generate-completion-script $shell failed"
  [ -s "$file" ] || dist_die "$binary printed an empty $shell completion script"
}
