# The release binary rangetap ships, built one way for tools/install.sh, the .deb, the benchmarks
# and tools/order-file.sh (source it; needs bash 4.4).
#
# On Linux every Swift function gets a section of its own and lld links them in the order of
# tools/rangetap.order (made by tools/order-file.sh), so the code a recording runs sits together:
# an idle `record` is about 6 MiB smaller (docs/performance.md, "Memory of the binary"). The
# linker skips names in the order file that the binary lacks. Functions without a symbol, which an
# order file cannot name, are gathered in one place by tools/unnamed-code.lds. SwiftPM does not
# relink when only the order file or the script changes: remove the linked binary first.

# release_flags ROOT: the extra `swift build` arguments, one per line (none off Linux).
release_flags() {
  [[ $(uname -s) == Linux ]] || return 0
  printf '%s\n' -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -use-ld=lld \
    -Xlinker "--symbol-ordering-file=$1/tools/rangetap.order" -Xlinker --no-warn-symbol-ordering \
    -Xlinker -T -Xlinker "$1/tools/unnamed-code.lds"
}

# release_build ROOT: `swift build -c release --product rangetap --static-swift-stdlib` with those
# arguments in ROOT (its output on stderr); prints the binary's path, fails when the build does.
release_build() {
  local flags
  mapfile -t flags < <(release_flags "$1")
  (cd "$1" && swift build -c release --product rangetap --static-swift-stdlib "${flags[@]}" >&2) || return 1
  echo "$(cd "$1" && swift build -c release --static-swift-stdlib --show-bin-path)/rangetap"
}
