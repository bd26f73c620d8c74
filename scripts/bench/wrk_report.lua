-- Prints wrk's totals as one JSON line after its usual report, for bench/run.py.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"bytes":%d,"duration_us":%d,"errors":%d,"non2xx":%d,"p50_us":%d,"p99_us":%d}\n',
    summary.requests, summary.bytes, summary.duration,
    e.connect + e.read + e.write + e.timeout + e.status, e.status,
    latency:percentile(50), latency:percentile(99)))
end
