#!/usr/bin/env bash
# Online backup and restore, for real.
#
# SQLite: a server under write load (4 connections adding items, each acknowledged add
# recorded) is backed up through POST /v1/keychain/backup and through `keychaind backup`; each
# copy passes integrity_check, is restored with `keychaind restore` into a fresh data directory
# (with a copy of the instance key file), served and unlocked, and holds every item acknowledged
# before its backup began, with its exact bytes. Copies an interrupted backup left in the data
# directory are removed when serve starts. Refused, changing nothing: a backup by a token
# without admin, or by an admin of some groups (403, over the API and through the CLI); a
# restore of a file that is not a keychaind database, of a backup with another instance key
# file, onto a data directory a running server holds, or onto a keychain without --force. No
# token reaches a log.
#
# PostgreSQL (started here, as nobody under root, on loopback): items added through keychaind,
# pg_dump -Fc while it serves, pg_restore into a new database, keychaind on it with the same
# instance key file unlocks and has every item with its bytes. POST /v1/keychain/backup there is
# 501 errSecUnimplemented naming store.
# Prints `backup: N passed, N failed`.
#
# Environment: KEYCHAIND (a prebuilt binary; default: build it), SWIFT_FLAGS, KEYCHAIND_PG_BIN.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
# shellcheck source=Tests/lib.sh
source Tests/lib.sh
bin=$(keychaind_binary)

make_tmp
stop_on_exit server_pid
stop_on_exit writer_pid
trap 'exit 130' INT TERM
load() { python3 "$root/Tests/backup/load.py" "$@"; }

(umask 077 && printf 'backup test passphrase\n' >"$tmp/pass")
"$bin" init --data-dir "$tmp/data" --passphrase-file "$tmp/pass" --admin-token-file "$tmp/admin" >/dev/null
admin=$(<"$tmp/admin")
port=$(free_port)
base="http://127.0.0.1:$port"

# serve DIRECTORY [ARGUMENTS...]: keychaind on DIRECTORY, unlocked from the passphrase file.
serve() {
    local directory=$1
    shift
    start_keychaind "$tmp/serve.log" "$bin" serve --data-dir "$directory" --listen "127.0.0.1:$port" \
        --passphrase-file "$tmp/pass" "$@"
    wait_http "$base/v1/health" "$server_pid" -f || fail_with_log "backup: keychaind did not start; its log:" "$tmp/serve.log"
}

# status_of METHOD PATH TOKEN [CURL_OPTIONS...]: the HTTP status, the body in $tmp/body.
status_of() {
    local method=$1 path=$2 token=$3
    shift 3
    curl -sS --max-time 60 -o "$tmp/body" -w '%{http_code}' -X "$method" -H "Authorization: Bearer $token" "$@" "$base$path"
}

# restored_has WHAT DIRECTORY TOKEN SERVICE ACKS [SERVE_ARGUMENTS...]: serves DIRECTORY, checks
# that it unlocks with the passphrase and holds every item of ACKS with its bytes, and stops it.
restored_has() {
    local what=$1 directory=$2 token=$3 service=$4 acks=$5
    shift 5
    serve "$directory" "$@"
    check "the keychain restored from $what unlocks" \
        test "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$base/v1/keychain/unlock" -d '{"passphrase":"backup test passphrase"}')" = 200
    check "every item acknowledged before $what is there with its bytes" load verify "$port" "$token" "$service" "$acks"
    stop_process "$server_pid"
    server_pid=
}

# integrity FILE: SQLite's integrity_check of FILE says ok.
integrity() { [[ $(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("pragma integrity_check").fetchone()[0])' "$1") == ok ]]; }

# What a backup interrupted by a crash leaves in the data directory: removed when serve starts.
echo left >"$tmp/data/.keychain-backup-dead.db"
echo left >"$tmp/data/.keychain-backup-dead.db-journal"
serve "$tmp/data" --audit-log "$tmp/audit.log"
check "serve removes the copies an interrupted backup left" \
    bash -c "! ls -A '$tmp/data' | grep -q '^\.keychain-backup-' && test -e '$tmp/data/keychain.db'"
check "and says so in its log" grep -q "removed the temporary copies an interrupted backup left" "$tmp/serve.log"
status_of POST /v1/tokens "$admin" -d '{"name":"reader","accessGroups":["*"],"capabilities":["read","write"]}' >/dev/null
reader=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["token"])' "$tmp/body")
status_of POST /v1/tokens "$admin" -d '{"name":"team-admin","accessGroups":["team"],"capabilities":["admin","read"]}' >/dev/null
scoped=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["token"])' "$tmp/body")
(umask 077 && echo "$admin" >"$tmp/admin-file" && echo "$reader" >"$tmp/reader-file")

# --- backups under write load -------------------------------------------------------------------
: >"$tmp/acks"
# python3 itself in the background (not a function's subshell), so that TERM reaches it.
python3 "$root/Tests/backup/load.py" writer "$port" "$admin" load "$tmp/acks" 4000 &
writer_pid=$!
# Some adds acknowledged before the first backup (a bounded wait).
for _ in $(seq 300); do (( $(wc -l <"$tmp/acks") >= 200 )) && break; sleep 0.05; done
cp "$tmp/acks" "$tmp/acks-api"
code=$(curl -sS --max-time 60 -o "$tmp/api.db" -D "$tmp/headers" -w '%{http_code}' -X POST -H "Authorization: Bearer $admin" "$base/v1/keychain/backup")
check "a backup through the API under write load is 200" test "$code" = 200
check "it comes as application/vnd.sqlite3, an attachment" bash -c \
    "grep -qi '^content-type: application/vnd.sqlite3' '$tmp/headers' && grep -qi '^content-disposition: attachment' '$tmp/headers'"
cp "$tmp/acks" "$tmp/acks-cli"
check "keychaind backup under write load writes the file" "$bin" backup --url "$base" --token-file "$tmp/admin-file" --to "$tmp/cli.db"
check "the backup file is 0600" test "$(stat -c %a "$tmp/cli.db")" = 600
kill -TERM "$writer_pid" 2>/dev/null || true
wait "$writer_pid" && writer_status=0 || writer_status=$?
writer_pid=
check "the writer saw only 201s" test "$writer_status" = 0
echo "backup: $(wc -l <"$tmp/acks-api") adds acknowledged before the API backup, $(wc -l <"$tmp/acks-cli") before the CLI's, $(wc -l <"$tmp/acks") in all"
check "the API backup passes integrity_check" integrity "$tmp/api.db"
check "the CLI backup passes integrity_check" integrity "$tmp/cli.db"
check "no account name in clear in a backup" bash -c "! grep -qF -- \"\$(head -1 '$tmp/acks' | cut -d' ' -f1)\" '$tmp/api.db'"

# --- refused backups ------------------------------------------------------------------------------
check "a backup by a token without admin is 403" test "$(status_of POST /v1/keychain/backup "$reader")" = 403
check "and it is errSecMissingEntitlement" grep -q '"status":-34018' "$tmp/body"
check "a backup by an admin of some groups is 403" test "$(status_of POST /v1/keychain/backup "$scoped")" = 403
check "keychaind backup with a token without admin fails, saying why" bash -c \
    "! '$bin' backup --url '$base' --token-file '$tmp/reader-file' --to '$tmp/refused.db' 2>'$tmp/refused.err' && grep -q errSecMissingEntitlement '$tmp/refused.err'"
check "and writes no file" test ! -e "$tmp/refused.db"
check "keychaind backup without a token is refused" bash -c \
    "! env -u KEYCHAIND_TOKEN '$bin' backup --url '$base' --to '$tmp/refused.db' 2>/dev/null && test ! -e '$tmp/refused.db'"
check "no temporary copy is left in the data directory" bash -c "! ls -a '$tmp/data' | grep -q backup"

# --- a keychain other than default ----------------------------------------------------------------
check "a second keychain is created" \
    test "$(status_of POST /v1/keychains "$admin" -d '{"name":"team-a","passphrase":"team a passphrase"}')" = 201
check "an item is added to it" test "$(status_of POST /v1/items "$admin" \
    -d '{"class":"genericPassword","service":"team-item","valueData":"dGVhbQ==","useKeychain":"team-a"}')" = 201
check "keychaind backup --keychain copies that keychain" \
    "$bin" backup --url "$base" --token-file "$tmp/admin-file" --keychain team-a --to "$tmp/team-a.db"
check "the keychain's backup passes integrity_check" integrity "$tmp/team-a.db"

# --- restore refuses, changing nothing ------------------------------------------------------------
check "restore onto the data directory a server holds is refused" bash -c \
    "! '$bin' restore --from '$tmp/api.db' --data-dir '$tmp/data' --force 2>'$tmp/held.err' && grep -q 'in use by another process' '$tmp/held.err'"
check "the server still serves its items after the refusal" bash -c \
    "curl -sf -H 'Authorization: Bearer $admin' '$base/v1/items?service=load&account=acct-000000' | grep -q acct-000000"
stop_process "$server_pid"
server_pid=
# Written by now: the server flushes its log and audit lines at exit.
check "the audit log has a line for each backup asked for, operation backup" bash -c \
    "grep -c '\"operation\":\"backup\"' '$tmp/audit.log' | grep -qx 6"
check "no token in the server's log or the audit log" bash -c \
    "! grep -qF -e '$admin' -e '$reader' -e '$scoped' '$tmp/serve.log' '$tmp/audit.log'"
cp "$tmp/serve.log" "$tmp/serve-first.log"
check "with no server running, keychaind backup copies the data directory" \
    "$bin" backup --url "$base" --data-dir "$tmp/data" --to "$tmp/offline.db"
check "keychaind backup --offline copies the data directory" "$bin" backup --offline --data-dir "$tmp/data" --to "$tmp/offline2.db"
check "the offline backup passes integrity_check" integrity "$tmp/offline.db"
check "keychaind backup --offline --keychain copies that keychain's own file" \
    "$bin" backup --offline --data-dir "$tmp/data" --keychain team-a --to "$tmp/team-a-offline.db"
check "the keychain's offline backup passes integrity_check" integrity "$tmp/team-a-offline.db"

fresh() { mkdir -m 0700 "$tmp/$1" && cp -p "$tmp/data/instance.key" "$tmp/$1/"; }
fresh notadb
head -c 65536 /dev/urandom >"$tmp/noise.db"
check "restore refuses a file that is not a database" bash -c \
    "! '$bin' restore --from '$tmp/noise.db' --data-dir '$tmp/notadb' 2>'$tmp/err' && grep -q 'not a keychaind backup' '$tmp/err'"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("create table notes(x)"); c.commit()' "$tmp/other.db"
check "restore refuses a SQLite database that is not keychaind's" bash -c \
    "! '$bin' restore --from '$tmp/other.db' --data-dir '$tmp/notadb' 2>'$tmp/err' && grep -q 'not a keychaind backup' '$tmp/err'"
check "and changes nothing" test "$(ls -A "$tmp/notadb")" = instance.key
"$bin" init --data-dir "$tmp/otherkey" --passphrase-file "$tmp/pass" --admin-token-file "$tmp/other-admin" >/dev/null
mkdir -m 0700 "$tmp/wrongkey" && cp -p "$tmp/otherkey/instance.key" "$tmp/wrongkey/"
check "restore refuses a backup the instance key file does not open" bash -c \
    "! '$bin' restore --from '$tmp/api.db' --data-dir '$tmp/wrongkey' 2>'$tmp/err' && grep -q 'does not open the keys' '$tmp/err'"
check "and changes nothing there" test "$(ls -A "$tmp/wrongkey")" = instance.key
before=$(sha256sum <"$tmp/data/keychain.db")
check "restore onto a keychain without --force is refused" bash -c \
    "! '$bin' restore --from '$tmp/api.db' --data-dir '$tmp/data' 2>'$tmp/err' && grep -q 'holds a keychain already' '$tmp/err'"
check "and the keychain is unchanged" test "$(sha256sum <"$tmp/data/keychain.db")" = "$before"

# --- restored, served, unlocked: every item acknowledged before the backup ----------------------
for copy in api cli; do
    fresh "restored-$copy"
    check "keychaind restore puts the $copy backup in place" "$bin" restore --from "$tmp/$copy.db" --data-dir "$tmp/restored-$copy"
    check "the restored $copy database is 0600" test "$(stat -c %a "$tmp/restored-$copy/keychain.db")" = 600
    restored_has "the $copy backup" "$tmp/restored-$copy" "$admin" load "$tmp/acks-$copy"
done
check "restore --force replaces a keychain" "$bin" restore --from "$tmp/cli.db" --data-dir "$tmp/data" --force
restored_has "the CLI backup with --force" "$tmp/data" "$admin" load "$tmp/acks-cli"

# --- a keychain other than default: restore, passwd, export and import with --keychain ----------
fresh restored-all
check "the default keychain's backup, which lists team-a, is restored" \
    "$bin" restore --from "$tmp/offline.db" --data-dir "$tmp/restored-all"
check "restore --keychain of a keychain the default does not list is refused" bash -c \
    "! '$bin' restore --keychain team-b --from '$tmp/team-a-offline.db' --data-dir '$tmp/restored-all' 2>'$tmp/err' && grep -q 'lists no keychain team-b' '$tmp/err'"
check "restore --keychain team-a puts its backup in its own file" \
    "$bin" restore --keychain team-a --from "$tmp/team-a-offline.db" --data-dir "$tmp/restored-all"
check "the keychain's restored database is 0600" test "$(stat -c %a "$tmp/restored-all/keychains/team-a/keychain.db")" = 600
(umask 077 && printf 'team a passphrase\n' >"$tmp/team-pass" && printf 'team a, changed\n' >"$tmp/team-pass2" &&
    printf 'bundle passphrase\n' >"$tmp/bundle-pass")
check "passwd --keychain changes that keychain's passphrase" bash -c \
    "'$bin' passwd --keychain team-a --data-dir '$tmp/restored-all' --old-passphrase-file '$tmp/team-pass' --new-passphrase-file '$tmp/team-pass2' | grep -q 'passphrase changed'"
check "export --keychain writes a bundle of that keychain, its manifest naming it" bash -c \
    "'$bin' export --keychain team-a --data-dir '$tmp/restored-all' --passphrase-file '$tmp/team-pass2' --bundle-passphrase-file '$tmp/bundle-pass' --to '$tmp/team-a.kcbundle' | grep -q '\"keychains\":{\"team-a\":1}'"
check "import --keychain default puts its item into the default keychain" bash -c \
    "'$bin' import --keychain default --data-dir '$tmp/restored-all' --passphrase-file '$tmp/pass' --bundle-passphrase-file '$tmp/bundle-pass' --from '$tmp/team-a.kcbundle' | grep -q 'imported 1, skipped 0, replaced 0'"
check "--keychain of a keychain the server lacks is refused" bash -c \
    "! '$bin' export --keychain team-b --data-dir '$tmp/restored-all' --passphrase-file '$tmp/pass' --bundle-passphrase-file '$tmp/bundle-pass' --to '$tmp/none' 2>'$tmp/err' && grep -q 'no keychain team-b' '$tmp/err'"
serve "$tmp/restored-all"
check "the restored keychain refuses its old passphrase" \
    test "$(status_of POST /v1/keychains/team-a/unlock "$admin" -d '{"passphrase":"team a passphrase"}')" = 401
check "and unlocks with its new one" \
    test "$(status_of POST /v1/keychains/team-a/unlock "$admin" -d '{"passphrase":"team a, changed"}')" = 200
for keychain in team-a default; do
    check "the item is in keychain $keychain with its bytes" bash -c \
        "curl -sf -H 'Authorization: Bearer $admin' '$base/v1/items?service=team-item&returnData=true&useKeychain=$keychain' | grep -q dGVhbQ=="
done
stop_process "$server_pid"
server_pid=

# --- PostgreSQL: pg_dump, pg_restore into a new database, keychaind on it ------------------------
if [[ -d /usr/lib/postgresql || -n ${KEYCHAIND_PG_BIN:-} ]]; then
    make_traversable_tmp pgdir
    start_postgres "$pgdir"
    "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -qc "CREATE DATABASE keychain"
    url="postgresql://postgres@127.0.0.1:$pg_port/keychain"
    "$bin" init --data-dir "$tmp/pg" --database "$url" --passphrase-file "$tmp/pass" --admin-token-file "$tmp/pg-admin" >/dev/null
    pg_admin=$(<"$tmp/pg-admin")
    serve "$tmp/pg" --database "$url"
    : >"$tmp/pg-acks"
    check "items added through keychaind on PostgreSQL" load writer "$port" "$pg_admin" pg "$tmp/pg-acks" 300
    check "POST /v1/keychain/backup on PostgreSQL is 501" test "$(status_of POST /v1/keychain/backup "$pg_admin")" = 501
    check "errSecUnimplemented naming store and pg_dump" bash -c \
        "grep -q '\"status\":-4' '$tmp/body' && grep -q 'store: ' '$tmp/body' && grep -q pg_dump '$tmp/body'"
    check "keychaind backup --database points at pg_dump" bash -c \
        "! '$bin' backup --database '$url' --to '$tmp/pg.db' 2>'$tmp/err' && grep -q pg_dump '$tmp/err'"
    check "pg_dump -Fc of the serving keychain" "$pg_bin/pg_dump" -Fc -h 127.0.0.1 -p "$pg_port" -U postgres -f "$tmp/keychain.dump" keychain
    stop_process "$server_pid"
    server_pid=
    "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -qc "CREATE DATABASE restored"
    check "pg_restore into a new database" "$pg_bin/pg_restore" -h 127.0.0.1 -p "$pg_port" -U postgres --no-owner -d restored "$tmp/keychain.dump"
    mkdir -m 0700 "$tmp/pg-restored" && cp -p "$tmp/pg/instance.key" "$tmp/pg-restored/"
    restored_has "pg_dump" "$tmp/pg-restored" "$pg_admin" pg "$tmp/pg-acks" \
        --database "postgresql://postgres@127.0.0.1:$pg_port/restored"
else
    echo "backup: skipped the PostgreSQL checks: PostgreSQL is not installed (make deps-test)"
fi

report backup
