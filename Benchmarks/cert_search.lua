-- Id: an identity search by subject text among N certificates, the key's bytes and the
-- certificate's DER returned.
-- Usage: KEYCHAIND_TOKEN=... wrk -s cert_search.lua URL -- N
-- Certificate i's subject is CN=host-<i:05>.example.com, O=Bench (certs.py), and every
-- certificate pairs with the one private key, so each search answers one identity; a miss would
-- be a 404 and fail the row. A search costs in proportion to its certificate's place in the scan,
-- and a run holds only a dozen or two: so the wanted i starts at random and then steps by about
-- 0.618 N modulo N (a stride prime to N), which spreads any few searches evenly over the
-- certificates, as cert_scan.c (row Ic) does.

local threads = 0

function setup(thread)
  thread:set("thread_id", threads)
  threads = threads + 1
end

local function gcd(a, b)
  while b ~= 0 do a, b = b, a % b end
  return a
end

function init(args)
  count = assert(tonumber(args[1]), "the certificate count N is required after --")
  math.randomseed(os.time() * 1000 + thread_id)
  wanted = math.random(0, count - 1)
  stride = math.max(1, math.floor(0.6180339887 * count + 0.5))
  while gcd(stride, count) ~= 1 do stride = stride + 1 end
  headers = {
    ["Authorization"] = "Bearer " .. assert(os.getenv("KEYCHAIND_TOKEN"), "KEYCHAIND_TOKEN is not set"),
  }
end

function request()
  local path = string.format(
    "/v1/items?class=identity&matchSubjectContains=host-%05d.example&returnData=true", wanted)
  wanted = (wanted + stride) % count
  return wrk.format("GET", path, headers)
end
