-- B: GET /v1/items for one random item out of N preloaded ones, its data decrypted.
-- Usage: KEYCHAIND_TOKEN=... wrk -s get_random.lua URL -- N
-- The items are svc-<i>/acct-<i> for i in [0, N) (see preload.py); a miss would be a 404 and
-- fail the row.

local threads = 0

function setup(thread)
  thread:set("thread_id", threads)
  threads = threads + 1
end

function init(args)
  count = assert(tonumber(args[1]), "the item count N is required after --")
  math.randomseed(os.time() * 1000 + thread_id)
  headers = {
    ["Authorization"] = "Bearer " .. assert(os.getenv("KEYCHAIND_TOKEN"), "KEYCHAIND_TOKEN is not set"),
  }
end

function request()
  local i = math.random(0, count - 1)
  return wrk.format("GET", "/v1/items?service=svc-" .. i .. "&account=acct-" .. i .. "&returnData=true", headers)
end
