#!/usr/bin/env bash
# Checks that the Swift sources are as swift-format leaves them (the configuration is
# .swift-format: 4 spaces, 120 columns) and that no line is over 120 columns but for a string
# literal that cannot wrap (tools/check-columns.py). tools/test.sh runs it first.
#
# To format: swift format format -i -r --parallel Package.swift Sources Tests Examples Fuzz
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Sources Tests Examples Fuzz)
if ! swift format lint --strict -r --parallel "${paths[@]}"; then
  echo "check-format: run: swift format format -i -r --parallel ${paths[*]}" >&2
  exit 1
fi
tools/check-columns.py "${paths[@]}"
