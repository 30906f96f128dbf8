#!/usr/bin/env python3
"""Runs the suites of the built test binary in separate processes, several at a time.

Each suite runs in its own process (`--no-parallel`), exactly as `swift test --no-parallel`
would run it, so a suite that starts servers or counts its own descriptors sees only itself; the
processes run side by side, longest first, so the run takes about as long as its longest share.
The number of suites and tests run is printed, and a suite that fails has its whole output shown.

Used by tools/test.sh; by hand:
    tools/run-suites.py --filter 'RangeTapIntegrationTests\\.' --jobs 4
    tools/run-suites.py --filter 'RangeTapIntegrationTests\\.HTTP2RecordingTests' --jobs 1
"""

import argparse
import os
import re
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, ".build", "debug", "rangetapPackageTests.xctest")
# Seconds each suite took in the last run here (written by this script), else the checked-in
# figures of a clean clone: only the order of the queue depends on them.
LAST_TIMES = os.path.join(ROOT, ".build", "suite-seconds.tsv")
SHIPPED_TIMES = os.path.join(ROOT, "Tests", "suite-seconds.tsv")
# A suite that takes longer than this is stopped and counted as failed (the slowest takes 90 s).
SUITE_LIMIT_SECONDS = 600
RESULT = re.compile(r"Test run with (\d+) tests? in \d+ suites? (passed|failed)")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def list_suites(binary):
    """The top-level suites ("Module.Suite") of the binary, in listing order."""
    out = subprocess.run([binary, "--testing-library", "swift-testing", "--list-tests"],
                         check=True, capture_output=True, text=True, timeout=120).stdout
    suites = []
    for line in out.splitlines():
        suite = line.strip().split("/")[0]
        if suite and suite not in suites:
            suites.append(suite)
    return suites


def read_times():
    times = {}
    for path in (SHIPPED_TIMES, LAST_TIMES):
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    parts = line.rstrip("\n").split("\t")
                    if len(parts) == 2:
                        times[parts[1]] = float(parts[0])
    return times


def write_times(measured):
    times = read_times()
    times.update(measured)
    os.makedirs(os.path.dirname(LAST_TIMES), exist_ok=True)
    with open(LAST_TIMES, "w") as f:
        for suite, seconds in sorted(times.items(), key=lambda kv: -kv[1]):
            f.write(f"{seconds:.1f}\t{suite}\n")


def run_suite(binary, suite, log_dir):
    """Runs one suite; returns (passed, tests run, wall seconds, CPU seconds, log path).

    CPU seconds are the suite process's and those of its children it waited for (the peers)."""
    log = os.path.join(log_dir, suite + ".log")
    start = time.monotonic()
    with open(log, "w") as f:
        process = subprocess.Popen([binary, "--testing-library", "swift-testing", "--no-parallel",
                                    "--filter", "^" + re.escape(suite) + "/"],
                                   stdout=f, stderr=subprocess.STDOUT, cwd=ROOT)
        timer = threading.Timer(SUITE_LIMIT_SECONDS, process.kill)
        timer.start()
        _, status, usage = os.wait4(process.pid, 0)
        timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        if time.monotonic() - start >= SUITE_LIMIT_SECONDS:
            f.write(f"\nrun-suites: {suite} was stopped after {SUITE_LIMIT_SECONDS} s\n")
    seconds = time.monotonic() - start
    cpu = usage.ru_utime + usage.ru_stime
    with open(log, errors="replace") as f:
        text = ANSI.sub("", f.read())
    found = RESULT.findall(text)
    tests = int(found[-1][0]) if found else 0
    passed = process.returncode == 0 and bool(found) and found[-1][1] == "passed" and tests > 0
    return passed, tests, seconds, cpu, log


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--filter", default=".", help="regular expression a suite's Module.Suite must match")
    parser.add_argument("--skip", help="regular expression of suites to leave out")
    parser.add_argument("--jobs", type=int, default=4, help="suites run at once (default 4)")
    parser.add_argument("--alone", help="regular expression of suites that run after the others, one at a time "
                        "(they measure their own process's descriptors, memory or page faults)")
    parser.add_argument("--binary", default=BINARY)
    parser.add_argument("--logs", default=os.path.join(ROOT, ".build", "suite-logs"))
    args = parser.parse_args()

    if not os.access(args.binary, os.X_OK):
        sys.exit(f"run-suites: {args.binary} is not built; run `swift build --build-tests` first")
    suites = [s for s in list_suites(args.binary)
              if re.search(args.filter, s) and not (args.skip and re.search(args.skip, s))]
    if not suites:
        sys.exit(f"run-suites: no suite matches --filter {args.filter!r}")
    os.makedirs(args.logs, exist_ok=True)
    times = read_times()
    alone = [s for s in suites if args.alone and re.search(args.alone, s)]
    queue = sorted((s for s in suites if s not in alone), key=lambda s: -times.get(s, 30.0))
    lock = threading.Lock()
    results = {}
    start = time.monotonic()

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                suite = queue.pop(0)
            passed, tests, seconds, cpu, log = run_suite(args.binary, suite, args.logs)
            with lock:
                results[suite] = (passed, tests, seconds, log, cpu)
                mark = "✔" if passed else "✘"
                print(f"{mark} {suite}: {tests} tests, {seconds:.1f} s, {cpu:.1f} CPU s", flush=True)

    threads = [threading.Thread(target=worker) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Then the suites that must have the machine to themselves, one after another.
    queue.extend(alone)
    worker()

    write_times({s: r[2] for s, r in results.items()})
    failed = [s for s, r in results.items() if not r[0]]
    for suite in failed:
        print(f"\n──── {suite} failed; its output ({results[suite][3]}):", flush=True)
        with open(results[suite][3], errors="replace") as f:
            sys.stdout.write(f.read())
    total = sum(r[1] for r in results.values())
    cpu = sum(r[4] for r in results.values())
    wall = time.monotonic() - start
    verdict = "failed" if failed else "passed"
    print(f"run-suites: {len(results)} suites, {total} tests {verdict} in {wall:.0f} s "
          f"({args.jobs} at a time, {cpu:.0f} CPU s)" + (f"; failed: {', '.join(sorted(failed))}" if failed else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
