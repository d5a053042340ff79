#!/usr/bin/env bash
# Slow clients and anonymous load against a release build of keychaind with no proxy in front:
# Tests/attack/attack.py for 15 s from one address, then 15 s from 40. Fails when a
# well-behaved client waited more than 1 s for an answer, or the server's memory grew by more than
# 64 MiB. Then Tests/attack/imports.py: costly PKCS#12 imports from nine connections while the
# operator unlocks, every unlock 200. Then Tests/attack/hoard.py: 60 clients that ask for 20,000
# items each and never read, which may grow the server by at most 128 MiB. About 50 s once the
# release build is there (it shares Tests/container's scratch path,
# built by that suite just before).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/Tests/lib.sh"
make_tmp

bash "$root/Scripts/build-release.sh" --product keychaind --scratch-path "$root/.build-container" >"$tmp/build.log" 2>&1 || {
    cat "$tmp/build.log" >&2
    echo "attack: swift build failed" >&2
    exit 1
}
bin="$root/.build-container/release/keychaind"
port=$(free_port)
cd "$tmp"
stop_on_exit server
start_keychaind "$tmp/server.log" "$bin" serve --dev --listen "127.0.0.1:$port" \
    --dev-token-file "$tmp/token" --dev-passphrase-file "$tmp/passphrase"
server=$server_pid
wait_http "http://127.0.0.1:$port/v1/health" "$server"
# Locked, as after a restart: a wrong passphrase then costs an Argon2id derivation.
curl -sS -f -o /dev/null -X POST -H "Authorization: Bearer $(<"$tmp/token")" "http://127.0.0.1:$port/v1/keychain/lock"
for mode in one spread; do
    if ! python3 "$root/Tests/attack/attack.py" "$port" "$server" 15 "$mode"; then
        tail -5 "$tmp/server.log" >&2
        echo "attack: failed ($mode)" >&2
        exit 1
    fi
done
if ! python3 "$root/Tests/attack/imports.py" "$port" "$tmp/token" "$tmp/passphrase" 10; then
    tail -5 "$tmp/server.log" >&2
    echo "attack: failed (imports)" >&2
    exit 1
fi
if ! python3 "$root/Tests/attack/hoard.py" "$port" "$server" "$tmp/token" "$tmp/server.log"; then
    tail -5 "$tmp/server.log" >&2
    echo "attack: failed (hoard)" >&2
    exit 1
fi
echo "attack: passed"
