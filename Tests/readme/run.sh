#!/usr/bin/env bash
# Runs the README's curl walk-through exactly as written (the block between the
# <!-- walkthrough --> markers) against `keychaind serve --dev` on 127.0.0.1:8700, with the two
# variables `make run` tells the reader to export, and checks what each step must answer.
#
# Environment: KEYCHAIND (a prebuilt binary; default: build it), SWIFT_FLAGS (extra swift build flags).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=Tests/lib.sh
source Tests/lib.sh
bin=$(keychaind_binary)

tmp=$(mktemp -d)
server_pid=
cleanup() {
    stop_process "$server_pid"
    rm -rf "$tmp"
}
trap cleanup EXIT

if curl -s --max-time 2 -o /dev/null http://127.0.0.1:8700/ 2>/dev/null; then
    echo "readme: port 8700 is taken; the walk-through needs it free" >&2
    exit 1
fi
serve=("$bin" serve --dev --listen 127.0.0.1:8700 --log-level warning $(allow_root_flag))
"${serve[@]}" >"$tmp/server.out" 2>&1 &
server_pid=$!

# Start-up readiness: a bounded poll (30 s), not test synchronisation.
for _ in $(seq 150); do
    curl -fs --max-time 2 -o /dev/null http://127.0.0.1:8700/v1/health 2>/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.2
done

# The two export lines the server printed, as a reader pastes them.
grep -E '^ +export KEYCHAIND_(TOKEN|PASSPHRASE)=' "$tmp/server.out" | sed 's/^ *//' >"$tmp/exports.sh"
[[ $(wc -l <"$tmp/exports.sh") -eq 2 ]] || { echo "readme: keychaind --dev did not print the two export lines" >&2; cat "$tmp/server.out" >&2; exit 1; }

# The walk-through block, byte for byte.
awk '/<!-- walkthrough -->/{on=1; next} /<!-- \/walkthrough -->/{on=0} on' README.md | sed '1d;$d' >"$tmp/walkthrough.sh"
[[ -s $tmp/walkthrough.sh ]] || { echo "readme: no walk-through block found" >&2; exit 1; }

(source "$tmp/exports.sh" && bash -euo pipefail "$tmp/walkthrough.sh") >"$tmp/output.txt" 2>&1 || {
    echo "readme: the walk-through failed" >&2
    cat "$tmp/output.txt" >&2
    exit 1
}

passed=0
failed=0
check() {
    if grep -qF -- "$2" "$tmp/output.txt"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $1: expected output to contain: $2" >&2
    fi
}
check "add answers with the item" '"service":"db.example.com","account":"app"},"persistentRef":'
check "search returns the secret" '{"items":[{"valueData":"aHVudGVyMg=="}]}'
check "GET body search with kSec names" '"valueData":"aHVudGVyMg=="}]}'
check "update returns the label" '"label":"rotated"'
check "lock answers locked" '"state":"locked"'
check "locked search is 423" 'HTTP/1.1 423 Locked'
check "423 body is errSecInteractionNotAllowed" '"status":-25308,"error":"errSecInteractionNotAllowed"'
check "unlock answers unlocked" '"state":"unlocked"'
check "delete removes the item" '{"deleted":1}'
if [[ $failed -gt 0 ]]; then cat "$tmp/output.txt" >&2; fi
echo "readme: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
