-- B: GET /v1/items for one random item out of N preloaded ones, its data decrypted; with `kv`
-- after N (rows Kv and Ov), Vault's KV version 2 GET of one random secret out of N, as Vault's
-- clients send it, to keychaind or OpenBao alike.
-- Usage: KEYCHAIND_TOKEN=... wrk -s get_random.lua URL -- N [kv]
-- The items are svc-<i>/acct-<i>, the secrets secret/kv/<i>, for i in [0, N) (items.py add,
-- kv-put); a miss would be a 404 and fail the row.

local threads = 0

function setup(thread)
  thread:set("thread_id", threads)
  threads = threads + 1
end

function init(args)
  count = assert(tonumber(args[1]), "the item count N is required after --")
  kv = args[2] == "kv"
  math.randomseed(os.time() * 1000 + thread_id)
  local token = assert(os.getenv("KEYCHAIND_TOKEN"), "KEYCHAIND_TOKEN is not set")
  if kv then
    headers = { ["X-Vault-Token"] = token }
  else
    headers = { ["Authorization"] = "Bearer " .. token }
  end
end

function request()
  local i = math.random(0, count - 1)
  if kv then
    return wrk.format("GET", "/v1/secret/data/kv/" .. i, headers)
  end
  return wrk.format("GET", "/v1/items?service=svc-" .. i .. "&account=acct-" .. i .. "&returnData=true", headers)
end
