#!/usr/bin/env bash
# GET /v1/events over real sockets (docs/events.md): the lock event is in a subscriber's socket
# by the time the lock's answer arrives; 1,000 idle subscribers all get the next event, and the
# server's memory for them; a subscriber that never reads holds back neither writes nor a lock;
# the stream through nginx over TLS as deployed (Deploy/nginx.conf), event by event. Prints
# `events: N passed, N failed`.
#
# Environment: KEYCHAIND (a prebuilt binary; default: build it), SWIFT_FLAGS, NGINX.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
# shellcheck source=Tests/lib.sh
source Tests/lib.sh
bin=$(keychaind_binary)
nginx_binary events
# A thousand subscribers are a thousand sockets in the client and in the server.
ulimit -n 8192

make_tmp
make_traversable_tmp prefix
stop_on_exit nginx_pid
stop_on_exit server_pid
printf 'events test passphrase\n' >"$tmp/pass"
chmod 0600 "$tmp/pass"
"$bin" init --data-dir "$tmp/data" --passphrase-file "$tmp/pass" --admin-token-file "$tmp/admin" >/dev/null
port=$(free_port)
start_keychaind "$tmp/server.log" "$bin" serve --data-dir "$tmp/data" --listen "127.0.0.1:$port" \
    --trusted-proxy 127.0.0.2 --passphrase-file "$tmp/pass" --log-level warning \
    --connection-limit 2048 --max-connections-per-address 2048
wait_http "http://127.0.0.1:$port/v1/health" "$server_pid" -f || fail_with_log "events: keychaind did not start" "$tmp/server.log"
admin=$(<"$tmp/admin")

# run_checks COMMAND ARGUMENTS...: subscribers.py's checks, each counted.
run_checks() {
    local verdict name
    python3 "$root/Tests/events/subscribers.py" "$@" >"$tmp/checks.out" 2>&1 || true
    while read -r verdict name; do
        if [[ $verdict == ok ]]; then pass; else fail; echo "FAIL: $name" >&2; fi
    done < <(grep -E '^(ok|FAIL) ' "$tmp/checks.out")
    grep -E '^memory: ' "$tmp/checks.out" || true
    if ! grep -qE '^(ok|FAIL) ' "$tmp/checks.out"; then
        fail
        echo "FAIL: subscribers.py $1 ran no check:" >&2
        cat "$tmp/checks.out" >&2
    fi
}

KEYCHAIND_PASSPHRASE=$(<"$tmp/pass") run_checks order 127.0.0.1 "$port" "$admin" 20
run_checks many 127.0.0.1 "$port" "$admin" 1000 "$server_pid"
run_checks behind 127.0.0.1 "$port" "$admin"
curl -sS -f -o /dev/null -X POST -H 'Content-Type: application/json' -d "{\"passphrase\":\"$(<"$tmp/pass")\"}" \
    "http://127.0.0.1:$port/v1/keychain/unlock"

# --- through nginx over TLS ------------------------------------------------------------------------
tls_port=$(free_port)
start_nginx "$prefix" "$tls_port" "$port"
url=https://127.0.0.1:$tls_port
wait_http "$url/v1/health" "$nginx_pid" --cacert "$prefix/tls.crt" -f || fail_with_log "events: nginx did not start" "$prefix/error.log"
# A subscriber through the proxy, started and seen subscribed before the add it must get.
python3 "$root/Tests/events/subscribers.py" through-proxy "$url" "$prefix/tls.crt" "$admin" >"$tmp/proxy.out" 2>&1 &
proxied_pid=$!
for _ in $(seq 100); do
    grep -q '^: keychaind events' "$tmp/proxy.out" 2>/dev/null && break
    sleep 0.1
done
curl -sS -f -o /dev/null --cacert "$prefix/tls.crt" -H "Authorization: Bearer $admin" \
    -d '{"class":"genericPassword","service":"through-nginx","account":"a","valueData":"eA=="}' "$url/v1/items"
wait "$proxied_pid" || true
check "through nginx: text/event-stream, and the add event as it happens" bash -c \
    "grep -qx 'status 200 text/event-stream' '$tmp/proxy.out' && grep -qx 'event: add' '$tmp/proxy.out'" || cat "$tmp/proxy.out" >&2

report events
