# Shared by the benchmarks in tools/ (source it after lib.sh, once `log` and `die` exist).

# release_binary: sets BIN to $RANGETAP when given, else builds `swift build -c release
# --product rangetap` in $REPO_DIR and uses it; dies when there is no binary.
release_binary() {
  if [[ -n ${RANGETAP:-} ]]; then
    BIN=$RANGETAP
  else
    log "building release (swift build -c release --product rangetap)"
    (cd "$REPO_DIR" && swift build -c release --product rangetap >&2) || die "release build failed"
    BIN=$REPO_DIR/.build/release/rangetap
  fi
  [[ -x $BIN ]] || die "no rangetap binary at $BIN"
}

# Processes: STARTED holds the PIDs the script started; only these are ever signalled.
STARTED=()
forget() {
  local p keep=()
  for p in "${STARTED[@]}"; do [[ $p == "$1" ]] || keep+=("$p"); done
  STARTED=("${keep[@]}")
}
# stop PID SIGNAL SECONDS: signal, wait at most SECONDS for the exit, then SIGKILL. Sets STOP_RC.
STOP_RC=0
stop() {
  local pid=$1 sig=$2 secs=$3 i
  kill "-$sig" "$pid" 2>/dev/null || true
  for ((i = 0; i < secs * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    [[ $(ps -o stat= -p "$pid" 2>/dev/null) == Z* ]] && break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null && [[ $(ps -o stat= -p "$pid" 2>/dev/null) != Z* ]]; then
    log "pid $pid did not exit $secs s after SIG$sig: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  STOP_RC=0
  wait "$pid" 2>/dev/null || STOP_RC=$?
  forget "$pid"
}
# stop_on_exit: on exit, stops every PID still in STARTED and removes the temp dir $T
# (kept with BENCH_KEEP_TMP=1); Ctrl-C exits 130 through it.
stop_on_exit() {
  cleanup() {
    local rc=$? p
    trap - EXIT INT TERM
    for p in "${STARTED[@]}"; do stop "$p" TERM 5; done
    if [[ ${BENCH_KEEP_TMP:-0} == 1 ]]; then log "kept $T"; else rm -rf "$T"; fi
    exit "$rc"
  }
  trap cleanup EXIT
  trap 'exit 130' INT TERM
}
