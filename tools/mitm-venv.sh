# Shared by the benchmarks that compare against mitmproxy (source it once `log` exists).

# mitm_venv VENV: makes sure VENV/bin/mitmdump exists, creating the venv and installing
# mitmproxy from PyPI when it does not. Prints nothing and returns 0 when mitmdump is there;
# else prints the line of pip's output that says why (or "unknown error") and returns 1.
mitm_venv() {
  local venv=$1 pip_log reason
  [[ -x $venv/bin/mitmdump ]] && return 0
  log "installing mitmproxy into $venv"
  pip_log=$(mktemp)
  if { [[ -x $venv/bin/pip ]] || python3 -m venv "$venv"; } >"$pip_log" 2>&1 &&
     "$venv/bin/pip" install mitmproxy >>"$pip_log" 2>&1 && [[ -x $venv/bin/mitmdump ]]; then
    rm -f "$pip_log"
    return 0
  fi
  reason=$(grep -E 'ERROR|Error|error' "$pip_log" | tail -n 1 || true)
  [[ -n $reason ]] || reason=$(tail -n 1 "$pip_log" || true)
  rm -f "$pip_log"
  echo "${reason:-unknown error}"
  return 1
}

# mitm_prepare VENV OFF: sets MITMDUMP (VENV/bin/mitmdump) and MITM_REASON, empty when mitmproxy
# is there (installed by mitm_venv when missing), else why its rows are not run: OFF=1 (the
# caller's BENCH_NO_MITM=1) or the install's failure.
mitm_prepare() {
  MITMDUMP="$1/bin/mitmdump"
  MITM_REASON=""
  if [[ $2 == 1 ]]; then
    MITM_REASON="BENCH_NO_MITM=1"
  elif ! MITM_REASON=$(mitm_venv "$1"); then
    MITM_REASON="mitmproxy could not be installed: $MITM_REASON"
  fi
}
