#!/usr/bin/env python3
"""Fails when a Swift source line is longer than 120 columns, unless a string literal makes it so.

swift-format (tools/check-format.sh) wraps code but neither comments nor string literals; this
check covers the comments. A line passes when it is at most 120 columns once the contents of its
string literals are dropped (a literal that cannot wrap), or when it is inside a multi-line string.

Usage: tools/check-columns.py [PATH ...]   (default: Package.swift Sources Tests Examples)
"""

import os
import re
import sys

LIMIT = 120
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# A string literal on one line: a raw #"…"# (quotes inside), or "…" with escapes.
RAW_LITERAL = re.compile(r'(#+)".*?"\1')
LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"')


def swift_files(paths):
    for path in paths:
        if os.path.isfile(path):
            yield path
        for base, dirs, files in os.walk(path):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in sorted(files):
                if name.endswith(".swift"):
                    yield os.path.join(base, name)


def too_long(path):
    """(line number, length) of every line over the limit that no string literal excuses."""
    found = []
    in_multiline = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            quotes = line.count('"""')
            if in_multiline or quotes:
                if quotes % 2 == 1:
                    in_multiline = not in_multiline
                continue
            if len(line) <= LIMIT:
                continue
            code = line.split("//", 1)[0] if not line.lstrip().startswith("//") else line
            if '"' in code and len(LITERAL.sub('""', RAW_LITERAL.sub('""', line))) <= LIMIT:
                continue
            found.append((number, len(line)))
    return found


def main():
    paths = sys.argv[1:] or [os.path.join(ROOT, p) for p in ("Package.swift", "Sources", "Tests", "Examples")
                             if os.path.exists(os.path.join(ROOT, p))]
    failures = 0
    for path in swift_files(paths):
        for number, length in too_long(path):
            print(f"{path}:{number}: {length} columns (the limit is {LIMIT}; wrap the line or the comment)")
            failures += 1
    if failures:
        print(f"check-columns: {failures} lines over {LIMIT} columns", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
