#!/usr/bin/env bash
# Replicas on one PostgreSQL, for real. The suite starts PostgreSQL (Debian's, initdb
# as nobody under root) on a free loopback port, two keychaind replicas on it, and nginx with
# Deploy/nginx.conf rendered for both (Deploy/render-nginx-test.sh), then checks:
#   - lock, unlock, SIGUSR1, a setting and a token revocation on one replica, seen on the other
#     within 1 s (a token created on one works on the other at once);
#   - item events made on either replica, seen by both replicas' subscribers in one order, resumable;
#   - the same item added on both at once, 20 times: one 201 and one 409 each time;
#   - If-Match increments from both replicas: no update lost;
#   - 30 rounds of kill -9 of one replica under write load through nginx: no acknowledged write lost;
#   - PostgreSQL stopped under load: 503 errSecNotAvailable within 10 s, never a 500 or a hang;
#     PostgreSQL started again: both replicas write again by themselves.
# Tests/replicas/cluster.py makes the concurrent and timed requests.
#
# Environment: KEYCHAIND (a prebuilt binary; default: build it with swift), SWIFT_FLAGS,
# NGINX (the nginx binary), KEYCHAIND_PG_BIN (PostgreSQL's bin directory).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
# shellcheck source=Tests/lib.sh
source Tests/lib.sh

nginx_binary replicas
[[ -d /usr/lib/postgresql || -n ${KEYCHAIND_PG_BIN:-} ]] || { echo "replicas: PostgreSQL is not installed (make deps-test)" >&2; exit 1; }

make_tmp
make_traversable_tmp pgdir
make_traversable_tmp prefix
stop_on_exit writer_pid
stop_on_exit nginx_pid
stop_on_exit replica1_pid
stop_on_exit replica2_pid
trap 'exit 130' INT TERM

bin=$(keychaind_binary)
cluster() { python3 "$root/Tests/replicas/cluster.py" "$@"; }

start_postgres "$pgdir"
"$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -qc "CREATE DATABASE keychain"
url="postgresql://postgres@127.0.0.1:$pg_port/keychain"

echo "replica passphrase" >"$tmp/pass"
chmod 0600 "$tmp/pass" # keychaind refuses a passphrase file others can read
"$bin" init --data-dir "$tmp/r1" --database "$url" --passphrase-file "$tmp/pass" --admin-token-file "$tmp/admin" >/dev/null
admin=$(<"$tmp/admin")
# The second replica: its own data directory, with a copy of the instance key file.
mkdir -m 0700 "$tmp/r2"
cp "$tmp/r1/instance.key" "$tmp/r2/instance.key"

port1=$(free_port)
port2=$(free_port)
tls_port=$(free_port)

# start_replica N: replica N on its port, in the background; waits until it answers.
start_replica() {
    local n=$1 port_variable=port$1
    start_keychaind "$tmp/replica$n.log" "$bin" serve --data-dir "$tmp/r$n" --database "$url" \
        --listen "127.0.0.1:${!port_variable}" --trusted-proxy 127.0.0.2
    printf -v "replica${n}_pid" %s "$server_pid"
    wait_http "http://127.0.0.1:${!port_variable}/v1/health" "$server_pid" ||
        fail_with_log "replicas: replica $n did not start; its log:" "$tmp/replica$n.log"
}
start_replica 1
start_replica 2

start_nginx "$prefix" "$tls_port" "$port1,$port2"
wait_http "https://127.0.0.1:$tls_port/v1/health" "$nginx_pid" -k || fail_with_log "replicas: nginx did not start" "$prefix/error.log"

# --- propagation, timed against the 1 s bound ---------------------------------------------------
check "unlock on replica 1 reaches replica 2" cluster propagation unlock "$port1" "$port2" "$admin" "$tmp/pass"
check "lock on replica 2 reaches replica 1" cluster propagation lock "$port2" "$port1" "$admin"
check "unlock on replica 2 reaches replica 1" cluster propagation unlock "$port2" "$port1" "$admin" "$tmp/pass"
check "SIGUSR1 to replica 1 reaches replica 2" cluster propagation sigusr1 "$port1" "$port2" "$admin" "$replica1_pid"
cluster propagation unlock "$port1" "$port2" "$admin" "$tmp/pass" >/dev/null
check "a revocation on replica 1 reaches replica 2" cluster propagation revoke "$port1" "$port2" "$admin"
check "a setting changed on replica 2 reaches replica 1" cluster propagation settings "$port2" "$port1" "$admin"

# --- events, through the database ------------------------------------------------------------------
python3 "$root/Tests/replicas/events.py" across 127.0.0.1 "$port1" "$port2" "$admin" >"$tmp/events.out" 2>&1 || true
cat "$tmp/events.out"
check "each replica's subscriber gets both replicas' item events, in order" \
    grep -q "^ok each replica's subscriber gets both replicas' item events, in order" "$tmp/events.out"
check "the two replicas give each event the same id" grep -q "^ok the two replicas give each event the same id" "$tmp/events.out"
check "a stream of replica 1 resumes on replica 2 with Last-Event-ID" \
    grep -q "^ok a stream of replica 1 resumes on replica 2 with Last-Event-ID" "$tmp/events.out"

# Each replica beats once a second (and at the tick after its state changed): a bounded poll.
replicas_seen() {
    local status
    for _ in $(seq 20); do
        status=$(curl -s -H "Authorization: Bearer $admin" "http://127.0.0.1:$port1/v1/keychain")
        [[ $status == *'"replicas":{"live":2,"unlocked":2}'* ]] && return 0
        sleep 0.1
    done
    echo "GET /v1/keychain: $status" >&2
    return 1
}
check "GET /v1/keychain counts two live, unlocked replicas" replicas_seen

# --- uniqueness and check-and-set across replicas -----------------------------------------------
check "one 201 and one 409 for the same item added on both replicas at once" cluster race 20 "$port1" "$port2" "$admin"
check "If-Match updates from both replicas lose no update" cluster if-match 25 "$port1" "$port2" "$admin"

# start_writer SERVICE: adds items of SERVICE through nginx in the background until stop_writer,
# recording each acknowledged one in $tmp/acks (emptied first).
start_writer() {
    : >"$tmp/acks"
    python3 "$root/Tests/replicas/cluster.py" writer "$tls_port" "$admin" "$1" "$tmp/acks" tls >"$tmp/writer.out" &
    writer_pid=$!
}

# stop_writer WHAT PORT SERVICE: stops the writer, then checks that it saw only 201s and 503s
# through WHAT and that every write it saw acknowledged is stored (read on PORT).
stop_writer() {
    local writer_status
    kill -TERM "$writer_pid"
    wait "$writer_pid" && writer_status=0 || writer_status=$?
    writer_pid=
    cat "$tmp/writer.out"
    check "the writer saw only 201s and 503s through $1" test "$writer_status" -eq 0
    check "no acknowledged write lost to $1" cluster verify "$2" "$admin" "$3" "$tmp/acks"
}

# --- kill -9 under write load through nginx -----------------------------------------------------
start_writer load
for round in $(seq 30); do
    n=$((round % 2 + 1))
    victim=replica${n}_pid
    # Some writes acknowledged since the last round, then the kill.
    before=$(wc -l <"$tmp/acks")
    for _ in $(seq 200); do
        (( $(wc -l <"$tmp/acks") > before + 5 )) && break
        sleep 0.01
    done
    kill -9 "${!victim}"
    wait "${!victim}" 2>/dev/null || true
    start_replica "$n"
done
stop_writer "30 kill -9s" "$port1" load

# --- PostgreSQL stopped and started under load --------------------------------------------------
start_writer outage
as_unprivileged "$pg_bin/pg_ctl" -D "$pgdir/data" -m fast stop >/dev/null
check "database down: 503 errSecNotAvailable within 10 s" cluster unavailable "$port1" "$admin"
as_unprivileged "$pg_bin/pg_ctl" -D "$pgdir/data" -l "$pgdir/postgres.log" -w \
    -o "-p $pg_port -k $pgdir -c listen_addresses=127.0.0.1" start >/dev/null
postgres_pid=$(head -1 "$pgdir/data/postmaster.pid")
check "replica 1 recovers by itself" cluster recovered "$port1" "$admin"
check "replica 2 recovers by itself" cluster recovered "$port2" "$admin"
# nginx leaves out for 2 s a replica that answered 503: the writer's first acknowledgement
# through it comes within a few seconds (a bounded poll).
for _ in $(seq 100); do [[ -s $tmp/acks ]] && break; sleep 0.1; done
stop_writer "the outage" "$port2" outage

report replicas
