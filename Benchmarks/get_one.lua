-- Gw: the same GET again and again, one item by its persistent reference, its data decrypted:
-- what Gc sends through KeychainClient.
-- Usage: KEYCHAIND_TOKEN=... wrk -s get_one.lua URL -- /v1/items/<persistentRef>?returnData=true

function init(args)
  path = assert(args[1], "the request path is required after --")
  headers = {
    ["Authorization"] = "Bearer " .. assert(os.getenv("KEYCHAIND_TOKEN"), "KEYCHAIND_TOKEN is not set"),
  }
end

function request()
  return wrk.format("GET", path, headers)
end
