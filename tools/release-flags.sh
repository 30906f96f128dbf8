# The extra `swift build` arguments of the release binary rangetap ships (source it; Linux).
# Every Swift function in a section of its own, linked by lld in the order of
# tools/rangetap.order (made by tools/order-file.sh), so the code a recording runs sits together:
# an idle `record` is about 6 MiB smaller (docs/performance.md, "Memory of the binary").
# Stale names in the order file are skipped by the linker.
#
# release_flags ROOT: prints the arguments, one per line (read them with mapfile).
release_flags() {
  [[ $(uname -s) == Linux ]] || return 0
  printf '%s\n' -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -use-ld=lld \
    -Xlinker "--symbol-ordering-file=$1/tools/rangetap.order" -Xlinker --no-warn-symbol-ordering
}
