-- C: POST /v1/items with a unique item per request.
-- Usage: KEYCHAIND_TOKEN=... wrk -s add_unique.lua URL -- RUN_ID
-- Items are named add-<run>-<thread>-<n>, so repeated runs and wrk threads never collide
-- (a duplicate would be a 409 and fail the row).

local threads = 0

function setup(thread)
  thread:set("thread_id", threads)
  threads = threads + 1
end

function init(args)
  run_id = args[1] or tostring(os.time())
  counter = 0
  headers = {
    ["Authorization"] = "Bearer " .. assert(os.getenv("KEYCHAIND_TOKEN"), "KEYCHAIND_TOKEN is not set"),
    ["Content-Type"] = "application/json",
  }
  -- 32 bytes of secret, base64: a typical password or API key.
  value = "YmVuY2htYXJrLXNlY3JldC12YWx1ZS0wMTIzNDU2Nzg5"
end

function request()
  counter = counter + 1
  local name = string.format("add-%s-%d-%d", run_id, thread_id, counter)
  local body = string.format(
    '{"class":"genericPassword","service":"%s","account":"%s","valueData":"%s"}', name, name, value)
  return wrk.format("POST", "/v1/items", headers, body)
end
