#!/usr/bin/env bash
# Keys used in place (docs/certificates-keys-identities.md#keys-used-in-place), checked by a
# second implementation over HTTP: pyca/cryptography verifies keychaind's ECDSA (P-256, P-384,
# P-521, message and digest), Ed25519 and RSA (PKCS#1 v1.5, PSS) signatures, and signs for
# keychaind to verify; ECIES (Apple's variable-IV layout) and RSA-OAEP ciphertexts made by each
# open in the other; ECDH and X25519 agree, raw and through the X9.63 KDF.
# Prints `keys: N passed, N failed`.
#
# Environment: KEYCHAIND (a prebuilt binary; default: build it), SWIFT_FLAGS.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=Tests/lib.sh
source Tests/lib.sh
bin=$(keychaind_binary)
python3 -c 'import cryptography' 2>/dev/null || { echo "keys: cryptography is not installed (make deps-test)" >&2; exit 1; }

make_tmp
stop_on_exit server_pid
printf 'keys test passphrase\n' >"$tmp/pass"
chmod 0600 "$tmp/pass"
"$bin" init --data-dir "$tmp/data" --passphrase-file "$tmp/pass" --admin-token-file "$tmp/admin" >/dev/null
port=$(free_port)
start_keychaind "$tmp/server.log" "$bin" serve --data-dir "$tmp/data" --listen "127.0.0.1:$port" \
    --passphrase-file "$tmp/pass" --log-level warning
wait_http "http://127.0.0.1:$port/v1/health" "$server_pid" -f || fail_with_log "keys: keychaind did not start" "$tmp/server.log"

python3 Tests/keys/interop.py "http://127.0.0.1:$port" "$(<"$tmp/admin")" >"$tmp/interop.out" 2>&1 || true
while read -r verdict name; do
    if [[ $verdict == ok ]]; then pass; else fail; echo "FAIL: $name" >&2; fi
done < <(grep -E '^(ok|FAIL) ' "$tmp/interop.out")
grep -qE '^(ok|FAIL) ' "$tmp/interop.out" || { cat "$tmp/interop.out" >&2; fail; }
grep -q '^Traceback' "$tmp/interop.out" && { cat "$tmp/interop.out" >&2; fail; }
report keys
