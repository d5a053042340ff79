#!/usr/bin/env bash
# A bulk update is atomic across `kill -9` (a review found it held; kept as a
# regression). 300 items; in each of 5 rounds a PATCH relabels every one of them while the
# server is killed with SIGKILL at a random moment; after a restart every item carries the
# same label: all of the update or none of it, whenever the kill landed.
# Prints `atomic: N passed, N failed`.
#
# Environment: KEYCHAIND (a prebuilt binary; default: build it).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=Tests/lib.sh
source Tests/lib.sh
bin=$(keychaind_binary)

make_tmp
stop_on_exit server_pid KILL

(umask 077 && printf 'atomic test passphrase\n' >"$tmp/pass")
"$bin" init --data-dir "$tmp/data" --passphrase-file "$tmp/pass" --admin-token-file "$tmp/admin" >/dev/null
auth="Authorization: Bearer $(cat "$tmp/admin")"
port=$(free_port)
base="http://127.0.0.1:$port"

serve() {
    start_keychaind "$tmp/serve.log" "$bin" serve --data-dir "$tmp/data" --listen "127.0.0.1:$port" --passphrase-file "$tmp/pass"
    wait_http "$base/v1/health" "$server_pid" -f
}

serve
python3 - "$base" "$(cat "$tmp/admin")" <<'PY'
import http.client, json, sys, urllib.parse
url = urllib.parse.urlparse(sys.argv[1])
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
for n in range(300):
    body = json.dumps({"class": "genericPassword", "service": "bulk", "account": f"a{n}", "label": "v0"})
    connection.request("POST", "/v1/items", body, {"Authorization": f"Bearer {sys.argv[2]}"})
    response = connection.getresponse()
    response.read()
    assert response.status == 201, response.status
PY

labels() {
    curl -s -H "$auth" "$base/v1/items?service=bulk&matchLimit=all" |
        python3 -c 'import json,sys; items=json.load(sys.stdin)["items"]; print(len(items), " ".join(sorted({i["attributes"]["label"] for i in items})))'
}

for round in 1 2 3 4 5; do
    curl -s -o /dev/null --max-time 30 -X PATCH -H "$auth" "$base/v1/items" \
        -d "{\"query\":{\"service\":\"bulk\"},\"attributesToUpdate\":{\"label\":\"v$round\"}}" &
    patch_pid=$!
    # The kill lands anywhere from before the update starts to after it commits: the check
    # below holds for every moment, so the delay is a spread, not a synchronisation.
    sleep "0.0$((RANDOM % 10))"
    kill -KILL "$server_pid"
    wait "$server_pid" 2>/dev/null || true
    wait "$patch_pid" 2>/dev/null || true
    serve
    seen=$(labels)
    echo "atomic: round $round: items and labels after the kill: $seen"
    check "round $round: after kill -9 the 300 items carry one label (all of the update or none)" \
        bash -c "[[ '$seen' =~ ^300\ v[0-9]+$ ]]"
done

report atomic
