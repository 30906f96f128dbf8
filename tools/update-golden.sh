#!/usr/bin/env bash
# Regenerates the golden inspect outputs of the sample captures (captures/golden/), which
# Tests/RangeTapIntegrationTests/Inspect/GoldenInspectTests.swift compares against. Run after changing the
# analysis or the renderings on purpose, then read the diff before committing it.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product rangetap >&2
mkdir -p captures/golden
for c in captures/*.rtap; do
  name=$(basename "$c" .rtap)
  NO_COLOR=1 .build/debug/rangetap inspect "$c" > "captures/golden/$name.inspect.txt"
  .build/debug/rangetap inspect "$c" --json > "captures/golden/$name.inspect.json"
done
ls -la captures/golden >&2
