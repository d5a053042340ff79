-- Ks: POST /v1/keys/sign with one key kept in the keychain, a 32-byte message each time.
-- Usage: KEYCHAIND_TOKEN=... wrk -s sign.lua URL -- PERSISTENT_REF ALGORITHM

function init(args)
  local ref = assert(args[1], "the key's persistent reference")
  local algorithm = assert(args[2], "the algorithm")
  headers = {
    ["Authorization"] = "Bearer " .. assert(os.getenv("KEYCHAIND_TOKEN"), "KEYCHAIND_TOKEN is not set"),
    ["Content-Type"] = "application/json",
  }
  -- The same message each time: signing's cost does not depend on it (ECDSA's nonce is random).
  body = string.format(
    '{"persistentRef":"%s","algorithm":"%s","data":"YmVuY2htYXJrIG1lc3NhZ2UgdG8gc2lnbiwgMzIgYnl0ZXM="}', ref, algorithm)
end

function request()
  return wrk.format("POST", "/v1/keys/sign", headers, body)
end
