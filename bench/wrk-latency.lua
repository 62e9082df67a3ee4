-- Loaded by every runWrk (bench/load.mjs) with `wrk -s`: at the end, one parseable line with the latency percentiles
-- wrk's `--latency` table leaves out. wrk records latencies in microseconds; p99.9 is read from the same histogram as
-- its table. Only `done` is defined, so wrk keeps its static request path: no per-request Lua.
function done(summary, latency, requests)
  io.write(string.format("bench-latency-us: p50=%d p90=%d p99=%d p99.9=%d max=%d\n",
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max))
end
