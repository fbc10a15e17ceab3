-- wrk script of the benchmarks (bench/bench-support.mjs, wrkLoad): each request carries the next
-- of the bench account's API keys (read from the file named by the first argument, one per line)
-- and, when the second argument names a file (not "-"), asks for the next of its paths (one per
-- line), so every request can be a different query; further arguments are headers
-- ("name: value"). At the end, one line of JSON with the counts and latency.
local keys = {}
local paths = {}
local next_key = 0
local next_path = 0

function init(args)
  for line in io.lines(args[1]) do
    if line ~= "" then keys[#keys + 1] = line end
  end
  if args[2] ~= nil and args[2] ~= "-" then
    for line in io.lines(args[2]) do
      if line ~= "" then paths[#paths + 1] = line end
    end
  end
  for i = 3, #args do
    local name, value = args[i]:match("^([^:]+):%s*(.*)$")
    wrk.headers[name] = value
  end
end

function request()
  next_key = next_key % #keys + 1
  wrk.headers["x-api-key"] = keys[next_key]
  if #paths == 0 then return wrk.format(nil) end
  next_path = next_path % #paths + 1
  return wrk.format(nil, paths[next_path])
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK-JSON {"requests":%d,"durationUs":%d,"bytes":%d,"p50Us":%d,"p99Us":%d,"status":%d,"failed":%d}\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50),
    latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
