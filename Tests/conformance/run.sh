#!/usr/bin/env bash
# Black-box conformance of openapi.yaml against a live `keychaind serve --dev`:
# schemathesis generates at least MIN_REQUESTS requests in total and fails on any 5xx, any
# undocumented status code, content type or header, and any response breaking its schema.
#
# Every operation is generated, `GET /metrics` (text/plain) included: the phases' tokens hold
# every capability, `metrics` too.
#
# Two phases against one server:
#   1. unlocked: every operation but the locks and the settings changes (`POST /v1/keychain/lock`,
#      `/v1/keychains/lock-all`, `/v1/keychains/{name}/lock`, `PUT …/settings`: a lock, or a
#      generated lockInterval of a second or two, would lock the keychain and turn the rest of
#      the phase into 423s);
#   2. locked: the keychain is locked with curl, then every operation runs again, lock and
#      settings included, against the items phase 1 left behind (423s for their secrets).
#
# Certificates and keys (identities, `POST /v1/items/import`, PEM answers): openssl makes a CA,
# Ed25519 and P-256 leaves, their keys, PEM files and a PKCS#12 here, at test time; hooks.py
# puts them into some generated bodies (KEYCHAIND_CONFORMANCE_FIXTURES), so that identity adds
# and imports succeed sometimes instead of always answering errSecUnknownFormat.
#
# Environment: KEYCHAIND (a prebuilt binary; default: build it with swift), SWIFT_FLAGS (extra
# `swift build` flags, e.g. `--scratch-path .build-ci`), MIN_REQUESTS (default 1000),
# MAX_EXAMPLES (per operation and phase, default 60), SCHEMATHESIS_SEED (reproduce a run).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
min_requests=${MIN_REQUESTS:-1000}
max_examples=${MAX_EXAMPLES:-60}
phase_timeout=${PHASE_TIMEOUT:-600}
# shellcheck source=Tests/lib.sh
source Tests/lib.sh

command -v schemathesis >/dev/null || { echo "conformance: schemathesis is not installed (make deps-test)" >&2; exit 1; }
command -v openssl >/dev/null || { echo "conformance: openssl is not installed (make deps-test)" >&2; exit 1; }

make_tmp
stop_on_exit server_pid
trap 'exit 130' INT TERM

bin=$(keychaind_binary)

# make_fixtures DIR: a CA, leaves it issued with their keys (PEM), and a PKCS#12 of a leaf, its
# key and the CA under the password in DIR/p12.pass; hooks.py reads them.
make_fixtures() {
    local dir=$1 n
    mkdir -p "$dir"
    (
        cd "$dir"
        openssl req -x509 -newkey ed25519 -nodes -days 2 -subj "/CN=Conformance CA/O=keychaind" \
            -keyout ca.key -out ca.pem
        printf 'subjectKeyIdentifier=hash\nbasicConstraints=CA:FALSE\n' >leaf.ext
        for n in 1 2 3 4; do
            openssl genpkey -algorithm ed25519 -out "leaf$n.key"
            openssl req -new -key "leaf$n.key" -subj "/CN=leaf$n.example.com/O=keychaind" -out "leaf$n.csr"
            openssl x509 -req -in "leaf$n.csr" -CA ca.pem -CAkey ca.key -set_serial "$((1000 + n))" -days 2 \
                -extfile leaf.ext -out "leaf$n.pem"
            # The private key's DER (PKCS#8): its last 32 bytes are the seed, Apple's external form.
            openssl pkey -in "leaf$n.key" -outform DER -out "leaf$n.key.der"
        done
        openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:prime256v1 -out ec.key
        openssl req -new -key ec.key -subj "/CN=ec.example.com/O=keychaind" -out ec.csr
        openssl x509 -req -in ec.csr -CA ca.pem -CAkey ca.key -set_serial 2001 -days 2 -out ec.pem
        openssl ec -in ec.key -out ec-sec1.key
        printf 'conformance p12\n' >p12.pass
        openssl pkcs12 -export -in ec.pem -inkey ec.key -certfile ca.pem -name ec -passout file:p12.pass -out ec.p12
    ) >"$tmp/fixtures.log" 2>&1 || true
    # Checked by their files: errexit does not apply inside a subshell whose status is tested.
    for n in ca.pem leaf{1..4}.pem leaf{1..4}.key leaf{1..4}.key.der ec.pem ec.key ec-sec1.key ec.p12 p12.pass; do
        [[ -s $dir/$n ]] || fail_with_log "conformance: openssl could not make $n; its output:" "$tmp/fixtures.log"
    done
}
make_fixtures "$tmp/fixtures"
export KEYCHAIND_CONFORMANCE_FIXTURES=$tmp/fixtures

# start_server: a new `serve --dev` (a new throw-away keychain, unlocked) on a free port, its
# dev admin token in $auth and that token's id in $harness_token_id.
start_server() {
    port=$(free_port)
    base="http://127.0.0.1:$port"
    rm -f "$tmp/token"
    start_keychaind "$tmp/server.log" "$bin" serve --dev --listen "127.0.0.1:$port" --dev-token-file "$tmp/token"
    # Ready: health answers 200 and the dev token file is written.
    if ! { wait_http "$base/v1/health" "$server_pid" -f && wait_files "$tmp/token"; }; then
        fail_with_log "conformance: keychaind did not become ready on $base; its log:" "$tmp/server.log"
    fi
    auth="Authorization: Bearer $(<"$tmp/token")"
    [[ $(curl_status GET /v1/tokens/self) == 200 ]] || fail_with_log "conformance: the dev token does not work; its log:" "$tmp/server.log"
    harness_token_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$tmp/body")
}

# The dev admin token is never handed to schemathesis: each phase runs with an admin token of its
# own, made here, since schemathesis's stateful phase may revoke the token it runs with (when a
# token creation fails, it fills the revocation's id from ids seen in earlier responses, such as
# GET /v1/tokens/self). Its id still reaches it: a phase token of every group lists every token
# (GET /v1/tokens), and a revocation may name any id it listed, the dev token's too.

# curl_status METHOD PATH [BODY]: prints the HTTP status of a request with the dev admin token
# (000: no answer); the body lands in $tmp/body.
curl_status() {
    local data=()
    if [[ -n ${3:-} ]]; then data=(-H "Content-Type: application/json" -d "$3"); fi
    curl -sS --max-time 10 -o "$tmp/body" -w '%{http_code}' -X "$1" -H "$auth" "${data[@]}" "$base$2" || true
}

# revocation_in HAR ID: prints "N of TOTAL" when a request of the recording revoked token ID
# (DELETE /v1/tokens/ID answered 204) and succeeds; fails when none did.
revocation_in() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
entries = json.load(open(sys.argv[1], encoding="utf-8"))["log"]["entries"]
for n, e in enumerate(entries):
    if e["request"]["method"] == "DELETE" and e["request"]["url"].endswith("/v1/tokens/" + sys.argv[2]) \
            and e["response"]["status"] == 204:
        print(f"{n} of {len(entries)}")
        sys.exit(0)
sys.exit(1)
EOF
}

start_server

total=0
failed=0
# phase NAME [schemathesis filter options...]
phase() {
    local name=$1
    shift
    local seed_opt=()
    if [[ -n ${SCHEMATHESIS_SEED:-} ]]; then seed_opt=(--seed "$SCHEMATHESIS_SEED"); fi
    echo "== conformance phase: $name"
    local status
    status=$(curl_status POST /v1/tokens \
        '{"name":"schemathesis","accessGroups":["*"],"capabilities":["read","list","write","delete","lock","admin","metrics"]}')
    if [[ $status != 201 ]]; then
        echo "conformance: cannot create the phase's token ($status: $(cat "$tmp/body"))" >&2
        failed=1
        return
    fi
    local phase_token phase_token_id
    phase_token=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["token"])' "$tmp/body")
    phase_token_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$tmp/body")
    local rc=0
    timeout --kill-after=10 "$phase_timeout" \
        schemathesis --config-file "$root/Tests/conformance/schemathesis.toml" --no-color run "$root/openapi.yaml" \
        --url "$base" \
        -H "Authorization: Bearer $phase_token" \
        --generation-with-security-parameters false \
        --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
        --max-examples "$max_examples" \
        --request-timeout 30 \
        --report har --report-har-path "$tmp/$name.har" \
        "${seed_opt[@]}" "$@" </dev/null || rc=$?
    if [[ $rc -ne 0 ]]; then
        echo "conformance: phase $name failed (exit $rc)" >&2
        failed=1
    fi
    local count
    # Every request schemathesis sent and got an answer to, from its HAR recording.
    count=$(python3 - "$tmp/$name.har" <<'EOF'
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    print(sum(1 for e in json.load(f)["log"]["entries"] if e.get("response", {}).get("status", 0) > 0))
EOF
    ) || count=0
    echo "conformance: phase $name: $count requests answered"
    total=$((total + count))
    # Said, not failed: answering 401 after a revocation is the documented behaviour.
    local at
    if at=$(revocation_in "$tmp/$name.har" "$phase_token_id"); then
        echo "conformance: schemathesis revoked the token it ran with at request $at"
    fi
}

phase unlocked --exclude-operation-id lockKeychain --exclude-operation-id putSettings \
    --exclude-operation-id lockAllKeychains --exclude-operation-id lockNamedKeychain \
    --exclude-operation-id putNamedSettings

# Phase 1 must not have cut the branch the next phase sits on: the keychain is still unlocked,
# and the dev admin token still works unless schemathesis revoked it by its id (the documented
# behaviour: said, and the next phase runs on a new server, since no token is left to go on with).
status=$(curl -sS --max-time 10 -o "$tmp/body" -w '%{http_code}' "$base/v1/health" || true)
if [[ $status != 200 ]] || ! grep -q '"state" *: *"unlocked"' "$tmp/body"; then
    echo "conformance: the keychain is not unlocked after phase 1 (GET /v1/health: $status: $(cat "$tmp/body"))" >&2
    failed=1
fi
if at=$(revocation_in "$tmp/unlocked.har" "$harness_token_id"); then
    echo "conformance: schemathesis revoked the dev admin token ($harness_token_id) at request $at; the locked phase runs on a new keychaind"
    kill "$server_pid"
    wait "$server_pid" || true
    start_server
else
    status=$(curl_status GET /v1/tokens/self)
    if [[ $status != 200 ]]; then
        echo "conformance: the dev admin token no longer works after phase 1 (GET /v1/tokens/self: $status)" >&2
        grep -F "$harness_token_id" "$tmp/server.log" | grep -v "http.method=" >&2 || true
        failed=1
    fi
fi

status=$(curl_status POST /v1/keychain/lock)
if [[ $status != 200 ]]; then
    echo "conformance: POST /v1/keychain/lock answered $status" >&2
    failed=1
fi
phase locked

echo "conformance: $total requests in total (at least $min_requests required)"
if [[ $total -lt $min_requests ]]; then
    echo "conformance: too few requests: $total < $min_requests" >&2
    failed=1
fi
if [[ $failed -ne 0 ]]; then
    echo "conformance: FAILED; keychaind's log:" >&2
    tail -n 50 "$tmp/server.log" >&2
    exit 1
fi
echo "conformance: passed"
