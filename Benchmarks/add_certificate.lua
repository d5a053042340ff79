-- Ccert: POST /v1/items of a unique certificate per request.
-- Usage: KEYCHAIND_TOKEN=... wrk -s add_certificate.lua URL -- RUN OFFSET BASE64
-- BASE64 is a certificate's DER in base64 and OFFSET the place of 12 of its characters that
-- encode 9 bytes of its serial number, 3-byte aligned (certs.py window): any 12 characters of
-- the base64 alphabet there are 9 other bytes, so each request writes RUN (a number, one per
-- wrk run), its wrk thread and a counter into them without re-encoding the rest. The serial's
-- first byte lies outside the window, so it stays a positive, minimal INTEGER; a certificate
-- added twice would be a 409 and fail the row.

local threads = 0
local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

function setup(thread)
  thread:set("thread_id", threads)
  threads = threads + 1
end

-- `value` as `width` base64 digits, most significant first.
local function digits(value, width)
  local out = {}
  for i = width, 1, -1 do
    local digit = value % 64
    out[i] = alphabet:sub(digit + 1, digit + 1)
    value = math.floor(value / 64)
  end
  return table.concat(out)
end

function init(args)
  run = assert(tonumber(args[1]), "the run number is required after --")
  local offset = assert(tonumber(args[2]), "the window's offset is required")
  local template = assert(args[3], "the certificate's base64 is required")
  prefix = '{"class":"certificate","valueData":"' .. template:sub(1, offset)
  suffix = template:sub(offset + 13) .. '"}'
  counter = 0
  headers = {
    ["Authorization"] = "Bearer " .. assert(os.getenv("KEYCHAIND_TOKEN"), "KEYCHAIND_TOKEN is not set"),
    ["Content-Type"] = "application/json",
  }
end

function request()
  counter = counter + 1
  local window = digits(run, 2) .. digits(thread_id, 2) .. digits(counter, 8)
  return wrk.format("POST", "/v1/items", headers, prefix .. window .. suffix)
end
