-- D: etcd's HTTP/JSON gateway, a range read of one key with authentication on.
-- Usage: ETCD_TOKEN=... wrk -s etcd_range.lua URL -- BASE64_KEY
-- ETCD_TOKEN comes from POST /v3/auth/authenticate; etcd takes it bare in Authorization.

function init(args)
  local key = assert(args[1], "the base64 key is required after --")
  body = '{"key":"' .. key .. '"}'
  headers = {
    ["Authorization"] = assert(os.getenv("ETCD_TOKEN"), "ETCD_TOKEN is not set"),
    ["Content-Type"] = "application/json",
  }
end

function request()
  return wrk.format("POST", "/v3/kv/range", headers, body)
end
