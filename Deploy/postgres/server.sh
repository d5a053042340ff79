#!/bin/sh
# The entrypoint of both PostgreSQL servers of compose.yaml's `replicas` profile, on the
# postgres:15 image (Deploy/README.md, "Database failover"). Each names the other PEER_HOST.
#
# A server with data starts as it is: a primary, or a standby streaming from its peer. A
# primary whose peer has since been promoted refuses to start: after a failover the old primary
# is rebuilt as a standby, never restarted, or both would take writes. An empty server becomes
#   - the standby of its peer when the peer is a primary (pg_basebackup);
#   - else, with INITIAL_ROLE=primary, a new primary: initdb with POSTGRES_USER and
#     POSTGRES_PASSWORD_FILE, POSTGRES_DB created, replication allowed, and every commit
#     waiting for one standby (docs/replicas.md#database-failover);
#   - else nothing yet: it exits, and compose starts it again once the peer is a primary.
set -eu
data=${PGDATA:-/var/lib/postgresql/data}
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

# libpq's password file for reaching the peer, written from the secret at every start and kept
# out of the data directory (and so out of every base backup).
export PGPASSFILE=/tmp/keychaind-pgpass
umask 077
printf '*:*:*:%s:%s\n' "$POSTGRES_USER" "$(sed 's/[\\:]/\\&/g' "$POSTGRES_PASSWORD_FILE")" >"$PGPASSFILE"
chown postgres "$PGPASSFILE"

peer_is_primary() {
    [ "$(as_postgres psql "host=$PEER_HOST user=$POSTGRES_USER dbname=$POSTGRES_DB connect_timeout=2" \
        -XAtc 'SELECT pg_is_in_recovery()' 2>/dev/null)" = f ]
}

if [ -s "$data/PG_VERSION" ]; then
    if [ ! -e "$data/standby.signal" ] && peer_is_primary; then
        echo "postgres: $PEER_HOST is the primary now and this server was one before: it must not take writes again. Rebuild it as the standby: empty its volume and start it." >&2
        exit 1
    fi
elif peer_is_primary; then
    chown postgres:postgres "$data"
    chmod 0700 "$data"
    as_postgres pg_basebackup --host="$PEER_HOST" --username="$POSTGRES_USER" --pgdata="$data" \
        --wal-method=stream --checkpoint=fast --no-password
    as_postgres touch "$data/standby.signal"
    # The peer's settings came with the copy: once promoted, this server waits for no standby
    # until one is attached and named again.
    printf "primary_conninfo = 'host=%s user=%s passfile=%s'\nsynchronous_standby_names = ''\n" \
        "$PEER_HOST" "$POSTGRES_USER" "$PGPASSFILE" >>"$data/postgresql.auto.conf"
elif [ "${INITIAL_ROLE:-}" = primary ]; then
    chown postgres:postgres "$data"
    chmod 0700 "$data"
    password=$(mktemp)
    cat "$POSTGRES_PASSWORD_FILE" >"$password"
    chown postgres "$password"
    as_postgres initdb -D "$data" -U "$POSTGRES_USER" --pwfile="$password" --encoding=UTF8 --no-locale \
        --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "$password"
    printf '%s\n' "host all all all scram-sha-256" "host replication $POSTGRES_USER all scram-sha-256" >>"$data/pg_hba.conf"
    as_postgres pg_ctl -D "$data" -w -o "-c listen_addresses=''" start >/dev/null
    as_postgres createdb -U "$POSTGRES_USER" "$POSTGRES_DB"
    as_postgres pg_ctl -D "$data" -w -m fast stop >/dev/null
    echo "synchronous_standby_names = 'ANY 1 (*)'" >>"$data/postgresql.auto.conf"
else
    echo "postgres: no data yet, and $PEER_HOST is not a primary to copy" >&2
    exit 1
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$data" -c listen_addresses='*'
