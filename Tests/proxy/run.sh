#!/usr/bin/env bash
# Deploy/nginx.conf proven for real. nginx (the Debian package) runs the test variant
# of Deploy/nginx.conf (Deploy/render-nginx-test.sh swaps only certificate paths, ports, the
# upstream address and pid/log/temp paths) in front of `keychaind serve --dev`, and curl checks
# through it over TLS: a search with a GET body, a 2 MiB upload refused by the proxy, the 423 of
# a locked keychain, unlock, and the proxy's rate limit on unlock. keychaind runs with the flags
# of Deploy/keychaind.service's ExecStart (its data directory swapped for --dev, its port for a
# free one), and the address nginx.conf connects from must be the one the unit trusts: one
# client's wrong unlocks through nginx do not hold another's right one back, and a local process
# connecting straight to keychaind cannot claim another address with X-Forwarded-For.
#
# Environment: KEYCHAIND (a prebuilt binary; default: build it with swift), SWIFT_FLAGS (extra
# `swift build` flags), NGINX (the nginx binary; default: nginx from PATH or /usr/sbin).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
# shellcheck source=Tests/lib.sh
source Tests/lib.sh

nginx_binary proxy
command -v openssl >/dev/null || { echo "proxy: openssl is not installed (make deps-test)" >&2; exit 1; }

# $tmp holds the dev token and passphrase (mode 0700); $prefix is nginx's.
make_tmp
make_traversable_tmp prefix
stop_on_exit nginx_pid
stop_on_exit server_pid
trap 'exit 130' INT TERM

bin=$(keychaind_binary)

kc_port=$(free_port)
tls_port=$(free_port)
proxy="https://127.0.0.1:$tls_port"

# ready URL WHAT PID LOG: waits until URL answers at all (wait_http), or fails with WHAT's LOG.
ready() {
    wait_http "$1" "$3" -k || fail_with_log "proxy: $2 did not become ready at $1; its log:" "$4"
}

# The unit's `keychaind serve` flags, in unit_flags; its --trusted-proxy in unit_trusted.
read_unit_flags() {
    local line words i=2
    line=$(grep -m1 '^ExecStart=' "$root/Deploy/keychaind.service") || { echo "proxy: no ExecStart in keychaind.service" >&2; exit 1; }
    read -r -a words <<<"${line#ExecStart=}"
    [[ ${words[0]} == */keychaind && ${words[1]} == serve ]] || { echo "proxy: the unit does not run keychaind serve: $line" >&2; exit 1; }
    unit_flags=() unit_trusted=
    while ((i < ${#words[@]})); do
        case ${words[i]} in
            --data-dir) ((i += 2)) ;;
            --listen)
                [[ ${words[i + 1]} == 127.0.0.1:* ]] || { echo "proxy: the unit listens beyond 127.0.0.1: ${words[i + 1]}" >&2; exit 1; }
                unit_flags+=(--listen "127.0.0.1:$kc_port")
                ((i += 2)) ;;
            --trusted-proxy)
                unit_trusted+="${unit_trusted:+ }${words[i + 1]}"
                unit_flags+=(--trusted-proxy "${words[i + 1]}")
                ((i += 2)) ;;
            *) unit_flags+=("${words[i]}"); ((i += 1)) ;;
        esac
    done
}
read_unit_flags
# The address nginx.conf connects from on the same host: its proxy_bind map's default.
nginx_source=$(sed -n '/^ *map \$hostname \$keychaind_proxy_source {/,/}/s/^ *default \([^;]*\);/\1/p' "$root/Deploy/nginx.conf")
grep -qxE ' *proxy_bind \$keychaind_proxy_source;' "$root/Deploy/nginx.conf" || nginx_source=

start_keychaind "$tmp/server.log" "$bin" serve --dev "${unit_flags[@]}" \
    --dev-token-file "$tmp/token" --dev-passphrase-file "$tmp/pass"
ready "http://127.0.0.1:$kc_port/v1/health" keychaind "$server_pid" "$tmp/server.log"
wait_files "$tmp/token" "$tmp/pass" || { echo "proxy: keychaind wrote no dev token or passphrase file" >&2; exit 1; }
token=$(<"$tmp/token")

start_nginx "$prefix" "$tls_port" "$kc_port"
ready "$proxy/v1/health" nginx "$nginx_pid" "$prefix/error.log"

# request ARGS...: one bounded curl through the proxy; the status goes to $status, the body to $tmp/body.
request() {
    status=$(curl -ksS --max-time 10 -o "$tmp/body" -w '%{http_code}' "$@" 2>"$tmp/curl.err") || status="curl-error($(<"$tmp/curl.err"))"
}
# expect NAME EXPECTED_STATUS [BODY_REGEX]: a check judging the last request.
expect() {
    local name=$1 want=$2 pattern=${3:-}
    if [[ $status == "$want" ]] && { [[ -z $pattern ]] || grep -Eq -- "$pattern" "$tmp/body"; }; then
        echo "ok   $name"
        pass
    else
        echo "FAIL $name: expected $want${pattern:+ and a body matching /$pattern/}, got $status: $(head -c 500 "$tmp/body")"
        fail
    fi
}
auth=(-H "Authorization: Bearer $token")

status="nginx connects from '$nginx_source', the unit trusts '$unit_trusted'"
[[ -n $nginx_source && $nginx_source == "$unit_trusted" ]] && status=agree
: >"$tmp/body"
expect "nginx.conf connects from the address keychaind.service trusts" agree
json=(-H "Content-Type: application/json")

# (a) add, then a search whose query travels only in the GET body: returnData is asked there
# alone, so the secret in the answer proves the body reached keychaind.
request -X POST "${auth[@]}" "${json[@]}" \
    -d '{"class":"genericPassword","service":"proxy-test","account":"alice","valueData":"cHJveHktc2VjcmV0"}' \
    "$proxy/v1/items"
expect "add an item through the proxy" 201 '"persistentRef"'
request -X GET "${auth[@]}" "${json[@]}" \
    -d '{"class":"genericPassword","service":"proxy-test","returnData":true,"returnAttributes":true}' \
    "$proxy/v1/items"
expect "search with a GET body" 200 '"valueData" *: *"cHJveHktc2VjcmV0"'
request -X GET "${auth[@]}" "$proxy/v1/items?class=genericPassword&service=proxy-test&returnData=true"
expect "search with URL parameters" 200 '"valueData" *: *"cHJveHktc2VjcmV0"'

# (b) a 2 MiB body is refused by the proxy before keychaind sees it.
head -c $((2 * 1024 * 1024)) /dev/zero | tr '\0' 'a' >"$tmp/big"
request -X POST "${auth[@]}" "${json[@]}" --data-binary @"$tmp/big" "$proxy/v1/items"
expect "2 MiB upload refused by the proxy" 413 'errSecDataTooLarge.*proxy'

# (c) lock: the secret is out of reach (423, errSecInteractionNotAllowed), health says 503 unless
# lockedcode; unlock with the passphrase brings it back.
request -X POST "${auth[@]}" "$proxy/v1/keychain/lock"
expect "lock" 200 '"state" *: *"locked"'
request -X GET "${auth[@]}" "$proxy/v1/items?service=proxy-test&returnData=true"
expect "search with returnData while locked" 423 '"status" *: *-25308'
request "$proxy/v1/health"
expect "health while locked" 503
request "$proxy/v1/health?lockedcode=200"
expect "health while locked, lockedcode=200" 200
python3 -c 'import json, sys; print(json.dumps({"passphrase": open(sys.argv[1], encoding="utf-8").read().rstrip("\n")}))' \
    "$tmp/pass" >"$tmp/unlock.json"
request -X POST "${json[@]}" --data-binary @"$tmp/unlock.json" "$proxy/v1/keychain/unlock"
expect "unlock with the passphrase" 200 '"state" *: *"unlocked"'
request -X GET "${auth[@]}" "$proxy/v1/items?service=proxy-test&returnData=true"
expect "search with returnData after unlock" 200 '"valueData" *: *"cHJveHktc2VjcmV0"'

# (d) the proxy's unlock limit (5 a minute, burst 5): within a handful of wrong attempts the
# proxy itself answers 429 with Retry-After. (keychaind's own throttle answers 429 too, after
# 4 failures, with its own message; the proxy's names "this address".)
limited=
for _ in $(seq 12); do
    request -X POST "${json[@]}" -d '{"passphrase":"not-the-passphrase"}' -D "$tmp/headers" "$proxy/v1/keychain/unlock"
    if [[ $status == 429 ]] && grep -q 'this address' "$tmp/body" && grep -qi '^retry-after:' "$tmp/headers"; then
        limited=1
        break
    fi
done
if [[ -n $limited ]]; then status=limited; else status="not limited (last: $status)"; fi
: >"$tmp/body"
expect "unlock rate-limited by the proxy (429, Retry-After)" limited

# (e) one unlock ladder per client through nginx: 127.0.0.3 guesses wrong until it is refused;
# 127.0.0.4's right passphrase is then answered at once. (Were every client counted as the
# proxy, 127.0.0.4 would wait out 127.0.0.3's ladder, and (d)'s.)
refused=
for _ in $(seq 8); do
    request --interface 127.0.0.3 -X POST "${json[@]}" -d '{"passphrase":"not-the-passphrase"}' "$proxy/v1/keychain/unlock"
    if [[ $status == 429 ]]; then refused=1; break; fi
done
if [[ -n $refused ]]; then status=refused; else status="never refused (last: $status)"; fi
expect "wrong unlocks through nginx are refused (429)" refused
request --interface 127.0.0.4 -X POST "${json[@]}" --data-binary @"$tmp/unlock.json" "$proxy/v1/keychain/unlock"
expect "another client's right unlock through nginx is not held back" 200 '"state" *: *"unlocked"'

# (f) straight to keychaind from 127.0.0.1, each wrong guess claiming another address: all count
# as 127.0.0.1, whose ladder (d) already started, so the right passphrase under yet another
# claimed address is held back too.
direct="http://127.0.0.1:$kc_port"
for n in $(seq 6); do
    request -H "X-Forwarded-For: 198.51.100.$n" -X POST "${json[@]}" -d '{"passphrase":"not-the-passphrase"}' "$direct/v1/keychain/unlock"
    [[ $status == 429 ]] && break
done
request -H "X-Forwarded-For: 198.51.100.99" -X POST "${json[@]}" --data-binary @"$tmp/unlock.json" "$direct/v1/keychain/unlock"
expect "a forged X-Forwarded-For from 127.0.0.1 counts as 127.0.0.1" 429 '"status" *: *-25293'

# shellcheck disable=SC2119 # the closing line names no suite
if ! report; then
    echo "proxy: keychaind's log (tail):" >&2
    tail -n 30 "$tmp/server.log" >&2 || true
    echo "proxy: nginx's error log (tail):" >&2
    tail -n 30 "$prefix/error.log" >&2 || true
    exit 1
fi
