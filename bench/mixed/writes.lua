-- wrk script: the writes of the reads-under-writes run (docs/performance.md,
-- "Reads under writes"). WRITES=pay books a payment of 1.00 on one of the
-- open debts listed in $DEBTS_FILE (lines "debt_id item_id"), in turn;
-- WRITES=create hands over a new debtor's debt of two items, with an
-- identity and invoice numbers of its own (per thread and counter, so
-- that no two requests touch the same debtor or invoice number).
-- WRK_AUTH carries the key; CLIENT_ID the client. Counts non-2xx answers
-- and answers with errors, as post.lua does.

local mode = os.getenv("WRITES") or "pay"
local client = assert(os.getenv("CLIENT_ID"), "CLIENT_ID is not set")
local auth = os.getenv("WRK_AUTH")
local today = os.date("!%Y-%m-%d")
local run = os.time()

local debts = {}
if mode == "pay" then
  local f = assert(io.open(assert(os.getenv("DEBTS_FILE"), "DEBTS_FILE is not set"), "r"))
  local text = f:read("*a")
  f:close()
  for d, i in text:gmatch("(%d+)%s+(%d+)") do debts[#debts + 1] = { d, i } end
  assert(#debts > 0, "no debts in DEBTS_FILE")
end

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
if auth and auth ~= "" then wrk.headers["Authorization"] = auth end

non2xx, gql_errors = 0, 0
local threads = {}
local counter = 0

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

-- A personnummer (12 digits, Luhn check digit over the last 10) that no
-- other request of this run uses: the thread picks the year, the counter
-- the month, day and serial.
local function identity(n)
  local year = 1930 + tid
  local month = 1 + math.floor(n / 27972) % 12
  local day = 1 + math.floor(n / 999) % 28
  local serial = 1 + n % 999 -- 000 is no birth number
  local ten = string.format("%02d%02d%02d%03d", year % 100, month, day, serial)
  local sum = 0
  for k = 1, 9 do
    local v = tonumber(ten:sub(k, k)) * ((k % 2 == 1) and 2 or 1)
    sum = sum + (v > 9 and v - 9 or v)
  end
  return string.format("%04d%02d%02d%03d%d", year, month, day, serial, (10 - sum % 10) % 10)
end

local pay = [[{"query":"mutation($c: UUID!, $in: DebtPaymentInput!) { addDebtPayment(clientId: $c, input: $in) { id } }","variables":{"c":"%s","in":{"debtId":%s,"invoiceId":%s,"amount":"1.00","transactionDate":"%s"}}}]]
local create = [[{"query":"mutation($c: UUID!, $in: DebtorWithDebtsInput!) { createDebt(clientId: $c, input: $in) { id } }","variables":{"c":"%s","in":{"isCorporation":false,"identificationNumber":"%s","name":"Skrivare %d-%d","address":{"address1":"Vägen 2","zipCode":"123 45","city":"Malmö","countryCode":"SE"},"debts":[{"invoiceNumber":"RW-%d-%d-%d-1","invoiceDate":"2026-09-01T00:00:00+02:00","dueDate":"2026-10-01T00:00:00+02:00","amount":"1250.00"},{"invoiceNumber":"RW-%d-%d-%d-2","invoiceDate":"2026-09-01T00:00:00+02:00","dueDate":"2026-10-01T00:00:00+02:00","amount":"750.00"}]}}}]]

function request()
  counter = counter + 1
  local body
  if mode == "pay" then
    local d = debts[1 + (counter * 7 + tid * 131) % #debts]
    body = string.format(pay, client, d[1], d[2], today)
  else
    body = string.format(create, client, identity(counter), tid, counter,
      run, tid, counter, run, tid, counter)
  end
  return wrk.format(nil, nil, nil, body)
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  elseif body:find('"errors"', 1, true) then
    gql_errors = gql_errors + 1
    if gql_errors <= 3 then io.stderr:write(body:sub(1, 300), "\n") end
  end
end

function done(summary, latency, requests)
  local n2, ge = 0, 0
  for _, t in ipairs(threads) do
    n2 = n2 + (t:get("non2xx") or 0)
    ge = ge + (t:get("gql_errors") or 0)
  end
  io.write(string.format("RESULT rps=%.1f p50_ms=%.2f p99_ms=%.2f non2xx=%d gql_errors=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, n2, ge))
end
