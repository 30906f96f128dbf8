-- wrk-report.lua: prints wrk's totals as key=value lines after a run (tools/bench-load.sh).
--   wrk -t2 -c8 -d10s -s tools/wrk-report.lua URL
-- requests      completed requests (wrk counts a request when its whole response is read)
-- non2xx        responses whose status is not 2xx or 3xx (wrk: "Non-2xx or 3xx responses")
-- connect, read, write, timeout   socket errors
-- bytes, seconds, rps             bytes read, run time, requests/s
done = function(summary, latency, requests)
  local e = summary.errors
  local seconds = summary.duration / 1e6
  io.write(string.format("requests=%d\n", summary.requests))
  io.write(string.format("non2xx=%d\n", e.status))
  io.write(string.format("connect=%d\nread=%d\nwrite=%d\ntimeout=%d\n", e.connect, e.read, e.write, e.timeout))
  io.write(string.format("bytes=%d\n", summary.bytes))
  io.write(string.format("seconds=%.3f\n", seconds))
  io.write(string.format("rps=%.1f\n", summary.requests / seconds))
  io.write(string.format("latency_p50_ms=%.3f\n", latency:percentile(50) / 1000))
  io.write(string.format("latency_p99_ms=%.3f\n", latency:percentile(99) / 1000))
end
