-- wrk script of bench/http.mjs: each request carries the next of the bench account's API keys
-- (read from the file named by the first argument, one per line) and the headers given as
-- further arguments ("name: value"); at the end, one line of JSON with the counts and latency.
local keys = {}
local next_key = 0

function init(args)
  for line in io.lines(args[1]) do
    if line ~= "" then keys[#keys + 1] = line end
  end
  for i = 2, #args do
    local name, value = args[i]:match("^([^:]+):%s*(.*)$")
    wrk.headers[name] = value
  end
end

function request()
  next_key = next_key % #keys + 1
  wrk.headers["x-api-key"] = keys[next_key]
  return wrk.format(nil)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK-JSON {"requests":%d,"durationUs":%d,"bytes":%d,"p50Us":%d,"p99Us":%d,"status":%d,"failed":%d}\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50),
    latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
