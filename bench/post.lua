-- wrk script of bench/load.sh: POST one GraphQL request body on every
-- request and count what req/s alone would hide: answers that are not 2xx,
-- and 2xx answers that carry GraphQL errors (a server that answers errors
-- fast must not look fast).
--   WRK_BODY_FILE  the JSON body ({"query": ..., "variables": ...})
--   WRK_AUTH       an Authorization header value, or empty

local path = os.getenv("WRK_BODY_FILE")
assert(path and path ~= "", "WRK_BODY_FILE is not set")
local file = assert(io.open(path, "rb"))
local body = file:read("*a")
file:close()

wrk.method = "POST"
wrk.body = body
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/graphql-response+json, application/json"
local auth = os.getenv("WRK_AUTH")
if auth and auth ~= "" then
  wrk.headers["Authorization"] = auth
end

-- Each thread counts in its own globals; done() sums them.
non2xx = 0
gql_errors = 0

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function response(status, headers, resp)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  elseif resp and string.find(resp, '"errors"', 1, true) then
    gql_errors = gql_errors + 1
  end
end

-- One line that load.sh reads.
function done(summary, latency, requests)
  local n2, ge = 0, 0
  for _, t in ipairs(threads) do
    n2 = n2 + (t:get("non2xx") or 0)
    ge = ge + (t:get("gql_errors") or 0)
  end
  local e = summary.errors
  local secs = summary.duration / 1e6
  io.write(string.format(
    "RESULT requests=%d duration_s=%.2f rps=%.1f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f " ..
    "non2xx=%d gql_errors=%d socket_errors=%d\n",
    summary.requests, secs, summary.requests / secs,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000,
    n2, ge, e.connect + e.read + e.write + e.timeout))
end
