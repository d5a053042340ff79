#!/bin/sh
# The stand-in postgres:15 image's entrypoint: what Deploy/compose.yaml asks of the official one.
# On an empty data directory: initdb with POSTGRES_USER as the superuser, its password from
# POSTGRES_PASSWORD_FILE (scram-sha-256 over the network), and POSTGRES_DB created. Then
# PostgreSQL in the foreground, listening on every address, as the postgres user.
set -eu
data=/var/lib/postgresql/data
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ ! -s "$data/PG_VERSION" ]; then
    chown postgres:postgres "$data"
    chmod 0700 "$data"
    password=$(mktemp)
    cat "$POSTGRES_PASSWORD_FILE" >"$password"
    chown postgres "$password"
    as_postgres initdb -D "$data" -U "$POSTGRES_USER" --pwfile="$password" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "$password"
    echo "host all all 0.0.0.0/0 scram-sha-256" >>"$data/pg_hba.conf"
    as_postgres pg_ctl -D "$data" -w -o "-c listen_addresses=''" start >/dev/null
    as_postgres createdb -U "$POSTGRES_USER" "$POSTGRES_DB"
    as_postgres pg_ctl -D "$data" -w -m fast stop >/dev/null
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$data" -c listen_addresses='*'
