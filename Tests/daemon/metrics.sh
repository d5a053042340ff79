#!/usr/bin/env bash
# GET /metrics on a real daemon: scraped over the API port with a token holding the
# metrics capability (made by `token create --capability metrics`) and over --metrics-listen
# (here from KEYCHAIND_METRICS_LISTEN) without one; both scrapes parsed by prometheus_client's
# text parser (metrics_check.py): the families and their label sets, counters that moved by the
# requests made between the scrapes, and no group name, value, secret or token in either. Also:
# the API port refuses a scrape without a token (401) or with a token lacking the capability
# (403); the listener serves nothing else; a wildcard or public --metrics-listen address, from
# the flag or the configuration file, is refused at start.
# Prints `metrics: N passed, N failed`.
#
# Environment: KEYCHAIND (a prebuilt binary; default: build it), SWIFT_FLAGS (extra swift build flags).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=Tests/lib.sh
source Tests/lib.sh
python3 -c 'import prometheus_client' 2>/dev/null || { echo "metrics: prometheus_client is not installed (make deps-test)" >&2; exit 1; }
bin=$(keychaind_binary)

make_tmp
stop_on_exit server_pid KILL

(umask 077 && printf 'metrics test passphrase\n' >"$tmp/pass")
"$bin" init --data-dir "$tmp/data" --passphrase-file "$tmp/pass" --admin-token-file "$tmp/admin" >/dev/null
metrics_token=$("$bin" token create --data-dir "$tmp/data" --name prometheus --group '*' --capability metrics | sed -n 2p)
reader_token=$("$bin" token create --data-dir "$tmp/data" --name reader --group '*' --capability read | sed -n 2p)
admin="Authorization: Bearer $(<"$tmp/admin")"

port=$(free_port)
metrics_port=$(free_port)
base="http://127.0.0.1:$port"
listener="http://127.0.0.1:$metrics_port"
KEYCHAIND_METRICS_LISTEN="127.0.0.1:$metrics_port" start_keychaind "$tmp/serve.log" "$bin" serve --data-dir "$tmp/data" \
    --listen "127.0.0.1:$port" --passphrase-file "$tmp/pass"
# Ready: health answers 200, and the listener answers at all (a 404 for its root: not a scrape,
# which would count the items now and keep the count for 10 s).
if ! { wait_http "$base/v1/health" "$server_pid" -f && wait_http "$listener/" "$server_pid"; }; then
    fail_with_log "metrics: keychaind did not become ready; its log:" "$tmp/serve.log"
fi

# Three adds in a group whose name, service and secret are canaries.
for n in 1 2 3; do
    curl -s -o /dev/null -X POST -H "$admin" "$base/v1/items" \
        -d '{"class":"genericPassword","service":"svc-canary","account":"acct-'$n'","accessGroup":"group-canary","valueData":"c2VjcmV0LWNhbmFyeQ=="}'
done
ref=$(curl -s -H "$admin" "$base/v1/items?service=svc-canary&account=acct-1" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["items"][0]["persistentRef"])')
answer=$(curl -s -o "$tmp/before" -w '%{http_code} %{content_type}' -H "Authorization: Bearer $metrics_token" "$base/metrics")
check "the API port serves GET /metrics to a metrics token, as text/plain; version=0.0.4" \
    test "$answer" = "200 text/plain; version=0.0.4; charset=utf-8"
code=$(curl -s -o "$tmp/no-token" -w '%{http_code}' "$base/metrics")
check "without a token the API port answers 401" bash -c "test '$code' = 401 && grep -q '\"status\":-25293' '$tmp/no-token'"
code=$(curl -s -o "$tmp/reader" -w '%{http_code}' -H "Authorization: Bearer $reader_token" "$base/metrics")
check "a token without the metrics capability gets 403 naming it" bash -c \
    "test '$code' = 403 && grep -q '\"status\":-34018' '$tmp/reader' && grep -q 'metrics capability' '$tmp/reader'"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $metrics_token" "$base/v1/items?service=svc-canary")
check "the metrics token reads no item (403)" test "$code" = 403

# Between the scrapes: two reads by ref, a path no route has, a wrong passphrase.
curl -s -o /dev/null -H "$admin" "$base/v1/items/$ref"
curl -s -o /dev/null -H "$admin" "$base/v1/items/$ref?returnData=true"
curl -s -o /dev/null -H "$admin" "$base/no/such/route"
curl -s -o /dev/null --max-time 20 -X POST "$base/v1/keychain/unlock" -d '{"passphrase":"not the passphrase"}'
code=$(curl -s -o "$tmp/after" -w '%{http_code}' "$listener/metrics")
check "the metrics listener serves GET /metrics without a token" test "$code" = 200

check "both scrapes parse (prometheus_client) and hold what was done, and no canary" \
    python3 Tests/daemon/metrics_check.py "$tmp/before" "$tmp/after" \
    canary c2VjcmV0 "$ref" "$metrics_token" "$reader_token" "$(<"$tmp/admin")" tok_

code=$(curl -s -o "$tmp/listener-items" -w '%{http_code}' -H "$admin" "$listener/v1/items")
check "the listener serves nothing else: /v1/items is 404 there" bash -c \
    "test '$code' = 404 && grep -q '\"status\":-4' '$tmp/listener-items'"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$listener/metrics")
check "and POST /metrics is 405 there" test "$code" = 405
stop_process "$server_pid"
server_pid=

# A listener without a token must not face the world: wildcard and public addresses are refused.
read -r -a root_flag <<<"$(allow_root_flag)"
refused_start() {
    local status=0
    timeout 10 "$bin" serve --data-dir "$tmp/data" --listen "127.0.0.1:$(free_port)" "$@" "${root_flag[@]}" >"$tmp/refused" 2>&1 ||
        status=$?
    [[ $status -ne 0 && $status -ne 124 ]] && grep -q 'metrics-listen: .* is reachable beyond this host' "$tmp/refused"
}
check "--metrics-listen 0.0.0.0 is refused at start" refused_start --metrics-listen "0.0.0.0:$(free_port)"
check "--metrics-listen on a public address is refused at start" refused_start --metrics-listen "[2001:db8::1]:9100"
printf '{"metricsListen": "[::]:9100"}\n' >"$tmp/config.json"
check "metricsListen in the configuration file is checked the same way" refused_start --config "$tmp/config.json"

report metrics
