#!/usr/bin/env bash
# The container deployment, built and run for real.
#
# No image registry is reachable here, so the suite makes what the Dockerfile names itself:
#   - a Docker engine of its own from the machine's dockerd (`make deps-container` installs
#     Debian's docker.io and docker-compose where there is none): dockerd with its data root,
#     exec root and socket under a temporary directory, stopped by
#     its PID at the end (never a host-wide one);
#   - debian:bookworm-slim from debootstrap (minbase) and the Debian mirror apt uses;
#   - keychaind built for release on this (bookworm) host, the Swift runtime linked in, put in
#     Deploy/prebuilt/ for the Dockerfile's KEYCHAIND_BUILD=prebuilt stage (the default stage
#     compiles in the Swift image instead, which cannot be pulled here).
# Then it checks the image: it runs as uid 10001, ldd finds every library (and no Swift runtime
# library, which the image does not ship), `keychaind init` and
# `serve` work in it, no layer holds the test's passphrase, instance key or admin token (docker
# save, searched byte for byte), and it reports the image's size. And it runs Deploy/compose.yaml
# with Debian's docker-compose (1.29) through Deploy/README.md's steps, published on 127.0.0.1
# only: the `single` profile (health, the README walk-through through nginx over TLS, an item
# kept across `docker kill`, locked memory, a read-only root, a locked start without the
# passphrase secret) and the `replicas` profile (PostgreSQL and a synchronous standby, three
# replicas, nginx: one unlock and one lock through nginx reach all three; the primary stopped and
# the standby promoted, writes go on; the old primary refuses to start as one, and rejoins as the
# standby from an empty volume). nginx:stable and postgres:15 are stand-ins built
# here on the same base from Debian's nginx-light and postgresql-15.
#
# Environment: KEYCHAIND_CONTAINER_MIRROR (default: the first Debian URI apt uses).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
# shellcheck source=Tests/lib.sh
source Tests/lib.sh

# dockerd and debootstrap need root: elsewhere the suite is skipped, saying so.
if [[ $(id -u) -ne 0 ]]; then
    echo "container: skipped: the suite runs its own dockerd and debootstrap, which need root (run make test as root)"
    exit 0
fi
# Nothing is installed here: `make deps-container` does it, and keeps an engine already there.
for tool in dockerd docker docker-compose debootstrap; do
    command -v "$tool" >/dev/null || { echo "container: $tool is not installed (make deps-container)" >&2; exit 1; }
done

# The engine's own client first: a newer `docker` earlier on PATH may lack the builder it speaks.
docker=/usr/bin/docker
[[ -x $docker ]] || docker=$(command -v docker)
make_tmp
engine=$(mktemp -d /tmp/keychaind-docker.XXXXXX)
remove_on_exit "$engine" "$root/Deploy/prebuilt"
export DOCKER_HOST=unix://$engine/docker.sock DOCKER_BUILDKIT=1

# --- keychaind, built for release meanwhile -------------------------------------------------------

# The build takes both cores for about two minutes from a new clone; the engine, debootstrap and
# the stand-in images (downloads and unpacking, mostly) go on beside it. Stopped on an early exit,
# and then its build folder goes too: an interrupted build can leave a binary that SwiftPM calls
# up to date while it was built against an old layout.
bash "$root/Scripts/build-release.sh" --product keychaind --scratch-path "$root/.build-container" >"$tmp/build.log" 2>&1 &
build_pid=$!
build_finished() {
    local pid=$build_pid
    build_pid=
    wait "$pid"
}
interrupted_build() {
    [[ -n $build_pid ]] || return 0
    stop_process "$build_pid" INT
    rm -rf "$root/.build-container"
}
on_exit interrupted_build

# --- the engine ---------------------------------------------------------------------------------

stop_on_exit dockerd_pid
setsid /usr/sbin/dockerd --data-root "$engine/root" --exec-root "$engine/exec" --pidfile "$engine/docker.pid" \
    --host "$DOCKER_HOST" >"$engine/dockerd.log" 2>&1 &
dockerd_pid=$!
for _ in $(seq 100); do
    "$docker" info >/dev/null 2>&1 && break
    kill -0 "$dockerd_pid" 2>/dev/null || fail_with_log "container: dockerd exited" "$engine/dockerd.log"
    sleep 0.1
done
"$docker" info >/dev/null 2>&1 || fail_with_log "container: dockerd did not answer within 10 s" "$engine/dockerd.log"

# --- the base image -----------------------------------------------------------------------------

mirror=${KEYCHAIND_CONTAINER_MIRROR:-$(sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)}
mirror=${mirror:-http://deb.debian.org/debian}
debootstrap --variant=minbase bookworm "$engine/rootfs" "$mirror" >"$engine/debootstrap.log" 2>&1 ||
    fail_with_log "container: debootstrap failed" "$engine/debootstrap.log"
# Slimmed as Debian's bookworm-slim image is: no documentation, manuals or translations, now
# or in the packages installed on it later.
rm -rf "$engine/rootfs"/usr/share/{doc,man,info,locale}/* "$engine/rootfs"/var/lib/apt/lists/* "$engine/rootfs"/var/cache/apt/*
printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' 'path-exclude /usr/share/man/*' \
    'path-exclude /usr/share/info/*' 'path-exclude /usr/share/locale/*' >"$engine/rootfs/etc/dpkg/dpkg.cfg.d/docker-slim"
tar -C "$engine/rootfs" -c . | "$docker" import - debian:bookworm-slim >/dev/null
rm -rf "$engine/rootfs"

# What the compose file names and no registry gives: nginx:stable (Debian's nginx-light on the same
# base, with the official image's cache directory) and postgres:15 (Tests/container/postgres), built
# while keychaind is.
printf '%s\n' 'FROM debian:bookworm-slim' \
    'RUN apt-get update && apt-get install -y --no-install-recommends nginx-light && rm -rf /var/lib/apt/lists/* && mkdir -p /var/cache/nginx' \
    'CMD ["nginx", "-g", "daemon off;"]' | "$docker" build --network host -t nginx:stable - >"$tmp/nginx-build.log" 2>&1 ||
    fail_with_log "container: the nginx image did not build" "$tmp/nginx-build.log"
"$docker" build --network host -t postgres:15 "$root/Tests/container/postgres" >"$tmp/postgres-build.log" 2>&1 ||
    fail_with_log "container: the postgres image did not build" "$tmp/postgres-build.log"

# --- the image ----------------------------------------------------------------------------------

build_finished || fail_with_log "container: swift build failed" "$tmp/build.log"
binary="$root/.build-container/release/keychaind"
mkdir -p "$root/Deploy/prebuilt"
cp "$binary" "$root/Deploy/prebuilt/keychaind"

"$docker" build --network host -f Deploy/Dockerfile --build-arg KEYCHAIND_BUILD=prebuilt -t keychaind:test . \
    >"$tmp/docker-build.log" 2>&1 || fail_with_log "container: docker build failed" "$tmp/docker-build.log"

run() { "$docker" run --rm --network none "$@"; }

check "the image runs as uid 10001" test "$(run --entrypoint id keychaind:test -u):$(run --entrypoint id keychaind:test -g)" = "10001:10001"
check "ldd finds every library keychaind links" \
    bash -c "! $docker run --rm --network none --entrypoint ldd keychaind:test /usr/local/bin/keychaind | grep -q 'not found'"
check "keychaind links no Swift runtime library (the image ships none)" \
    bash -c "! $docker run --rm --network none --entrypoint ldd keychaind:test /usr/local/bin/keychaind | grep -q 'libswift\|libFoundation\|libdispatch'"

# A keychain made in the container, on a volume: the secrets the layers must not hold.
# Bind-mounted as it is: readable by the image's uid 10001 and nobody else (keychaind refuses a
# passphrase file that group or others can read).
head -c 24 /dev/urandom | base64 >"$tmp/passphrase"
chown 10001:10001 "$tmp/passphrase"
chmod 0400 "$tmp/passphrase"
"$docker" volume create keychaind-test-data >/dev/null
run -v keychaind-test-data:/var/lib/keychaind -v "$tmp/passphrase:/run/secrets/passphrase:ro" \
    --entrypoint keychaind keychaind:test init --data-dir /var/lib/keychaind --passphrase-file /run/secrets/passphrase \
    --admin-token-file /var/lib/keychaind/admin-token >"$tmp/init.log" 2>&1 ||
    fail_with_log "container: keychaind init failed in the container" "$tmp/init.log"
run -v keychaind-test-data:/data --entrypoint cat keychaind:test /data/admin-token >"$tmp/admin-token"
run -v keychaind-test-data:/data --entrypoint cat keychaind:test /data/instance.key >"$tmp/instance.key"
check "the volume holds the instance key and the admin token" test -s "$tmp/instance.key" -a -s "$tmp/admin-token"

# The image serves: health answers 200 with the keychain unlocked from the passphrase file.
port=$(free_port)
"$docker" run -d --name keychaind-test -p "127.0.0.1:$port:8700" -v keychaind-test-data:/var/lib/keychaind \
    -v "$tmp/passphrase:/run/secrets/passphrase:ro" keychaind:test --passphrase-file /run/secrets/passphrase >/dev/null
served() {
    for _ in $(seq 100); do
        [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/health") == 200 ]] && return 0
        sleep 0.1
    done
    "$docker" logs keychaind-test >&2
    return 1
}
check "the container serves, unlocked from its passphrase file (GET /v1/health 200)" served
check "the admin token from the volume authenticates" \
    test "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(<"$tmp/admin-token")" "http://127.0.0.1:$port/v1/keychain")" = 200
"$docker" rm -f keychaind-test >/dev/null

# No layer holds a secret: every byte of `docker save`, searched for each of the three.
"$docker" save keychaind:test -o "$tmp/image.tar"
no_secret_in_layers() {
    python3 - "$tmp/image.tar" "$tmp/passphrase" "$tmp/instance.key" "$tmp/admin-token" <<'EOF'
import io, sys, tarfile
secrets = [open(path, "rb").read().strip() for path in sys.argv[2:]]
assert all(len(s) >= 16 for s in secrets), "a secret is too short to search for"
def blobs(tar):
    for member in tar.getmembers():
        if member.isfile():
            data = tar.extractfile(member).read()
            yield member.name, data
            if member.name.endswith((".tar", "layer.tar")):
                with tarfile.open(fileobj=io.BytesIO(data)) as layer:
                    yield from blobs(layer)
found = [(name, n) for name, data in blobs(tarfile.open(sys.argv[1])) for n, s in enumerate(secrets) if s in data]
print(f"searched the image for {len(secrets)} secrets: {len(found)} found")
sys.exit(1 if found else 0)
EOF
}
check "no layer holds the passphrase, the instance key or the admin token" no_secret_in_layers

# --- Deploy/compose.yaml, as Deploy/README.md runs it ---------------------------------------------

# What the compose file names besides the stand-ins: keychaind:latest, the image above.
"$docker" tag keychaind:test keychaind:latest

# The deployment directory: the three files a user copies, then the README's steps 1 to 3.
deploy=$tmp/deploy
mkdir -p "$deploy"
cp -r Deploy/compose.yaml Deploy/.env Deploy/nginx.conf Deploy/postgres "$deploy/"
cd "$deploy"
umask 077
mkdir -p secrets tls
openssl rand -base64 32 >secrets/passphrase
touch secrets/db_password
chown -R 10001:10001 secrets
"$docker" volume create keychaind-data >/dev/null
"$docker" volume create keychaind-postgres >/dev/null
"$docker" volume create keychaind-postgres-standby >/dev/null
"$docker" run --rm -v keychaind-data:/var/lib/keychaind -v "$PWD/secrets:/secrets" \
    --entrypoint keychaind keychaind:latest init --data-dir /var/lib/keychaind \
    --key-file /secrets/instance.key --passphrase-file /secrets/passphrase \
    --admin-token-file /secrets/admin-token >"$tmp/compose-init.log" 2>&1 ||
    fail_with_log "container: the README's keychaind init failed" "$tmp/compose-init.log"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
    -subj /CN=keychaind.example -addext subjectAltName=DNS:keychaind.example \
    -keyout tls/tls.key -out tls/tls.crt 2>/dev/null
chmod 0644 tls/tls.crt tls/tls.key
umask 022

# Published on loopback only, on a free port.
https_port=$(free_port)
export KEYCHAIND_PUBLISH=127.0.0.1:$https_port
compose() { docker-compose "$@" >>"$tmp/compose.log" 2>&1; }
base=https://keychaind.example:$https_port
tls_curl() { curl -sS --max-time 10 --cacert "$deploy/tls/tls.crt" --resolve "keychaind.example:$https_port:127.0.0.1" "$@"; }
admin="Authorization: Bearer $(<secrets/admin-token)"

# up_and_healthy: `docker-compose up -d`, then a bounded poll (90 s) until keychaind's health
# check says healthy and nginx answers /v1/health?lockedcode=200 over TLS.
up_and_healthy() {
    compose up -d || { cat "$tmp/compose.log" >&2; return 1; }
    local container
    container=$(docker-compose ps -q keychaind 2>/dev/null)
    for _ in $(seq 450); do
        if [[ $("$docker" inspect -f '{{.State.Health.Status}}' "$container" 2>/dev/null) == healthy ]] &&
            [[ $(tls_curl -o /dev/null -w '%{http_code}' "$base/v1/health?lockedcode=200" 2>/dev/null) == 200 ]]; then
            return 0
        fi
        sleep 0.2
    done
    cat "$tmp/compose.log" >&2
    docker-compose logs --tail 30 >&2
    return 1
}
check "docker-compose up: keychaind's health check turns healthy, nginx answers over TLS" up_and_healthy
keychaind_container=$(docker-compose ps -q keychaind 2>/dev/null)

# The README's walk-through, as written, through nginx over TLS on the published port.
awk '/<!-- walkthrough -->/{on=1; next} /<!-- \/walkthrough -->/{on=0} on' "$root/README.md" | sed '1d;$d' |
    sed "s|^KC=http://127.0.0.1:8700$|KC=$base|" >"$tmp/walkthrough.sh"
mkdir -p "$tmp/curlhome"
printf 'cacert = "%s"\nresolve = "keychaind.example:%s:127.0.0.1"\n' "$deploy/tls/tls.crt" "$https_port" >"$tmp/curlhome/.curlrc"
walkthrough() {
    KEYCHAIND_TOKEN=$(<secrets/admin-token) KEYCHAIND_PASSPHRASE=$(<secrets/passphrase) CURL_HOME="$tmp/curlhome" \
        bash -euo pipefail "$tmp/walkthrough.sh" >"$tmp/walkthrough.out" 2>&1 &&
        grep -qF '{"items":[{"valueData":"aHVudGVyMg=="}]}' "$tmp/walkthrough.out" &&
        grep -qF 'HTTP/1.1 423 Locked' "$tmp/walkthrough.out" && grep -qF '"state":"unlocked"' "$tmp/walkthrough.out" &&
        grep -qF '{"deleted":1}' "$tmp/walkthrough.out" || { cat "$tmp/walkthrough.out" >&2; return 1; }
}
check "the README's walk-through runs through nginx over TLS" walkthrough

# An item acknowledged before `docker kill` is there after `docker-compose up` (the volume).
added=$(tls_curl -o /dev/null -w '%{http_code}' -X POST "$base/v1/items" -H "$admin" \
    -d '{"class":"genericPassword","service":"kept","account":"kill","valueData":"a2VwdA=="}' || true)
check "an item is added through nginx (201)" test "$added" = 201
"$docker" kill "$keychaind_container" >/dev/null
check "after docker kill, docker-compose up brings keychaind back healthy" up_and_healthy
check "the item acknowledged before the kill is read back" \
    test "$(tls_curl "$base/v1/items?service=kept&account=kill&returnData=true" -H "$admin" || true)" = '{"items":[{"valueData":"a2VwdA=="}]}'

# Inside the running container: key material locked in memory, and a read-only root.
keychaind_container=$(docker-compose ps -q keychaind 2>/dev/null)
vmlck_kb() { "$docker" exec "$keychaind_container" sh -c "awk '/^VmLck/ { print \$2 }' /proc/1/status"; }
check "sodium_malloc memory is locked (VmLck > 0 inside the container)" test "$(vmlck_kb || echo 0)" -gt 0
root_mount() { "$docker" exec "$keychaind_container" awk '$2 == "/" { split($4, o, ","); print o[1] }' /proc/mounts; }
check "the root file system is mounted read-only" test "$(root_mount || true)" = ro

# Without the passphrase secret (and its --passphrase-file), keychaind starts locked.
python3 - compose.yaml <<'EOF'
import sys
path = sys.argv[1]
text = open(path).read()
single = text.split("  keychaind:\n", 1)
head, rest = single[0], single[1]
service, tail = rest.split("\n\n", 1)
service = service.replace("      - --passphrase-file\n      - /run/secrets/passphrase\n", "")
service = service.replace("      - passphrase\n", "")
open(path, "w").write(head + "  keychaind:\n" + service + "\n\n" + tail)
EOF
compose up -d || true
# keychain_says TEXT: a bounded poll (90 s) until GET /v1/keychain through nginx contains TEXT.
keychain_says() {
    local status=''
    for _ in $(seq 450); do
        status=$(tls_curl "$base/v1/keychain" -H "$admin" 2>/dev/null || true)
        [[ $status == *"$1"* ]] && return 0
        sleep 0.2
    done
    echo "GET /v1/keychain: $status" >&2
    return 1
}
check "without the passphrase secret, keychaind starts locked" keychain_says '"state":"locked"'
check "and one unlock through nginx opens it" \
    test "$(tls_curl -o /dev/null -w '%{http_code}' -X POST "$base/v1/keychain/unlock" -d "{\"passphrase\":\"$(<secrets/passphrase)\"}" || true)" = 200
compose down || true

# The `replicas` profile, as Deploy/README.md's section on replicas runs it, in a directory of
# its own: PostgreSQL and its standby, `init --database` once, three replicas (locked) and nginx;
# one unlock and one lock through nginx, each seen by all three; then the README's failover.
replicas=$tmp/replicas
mkdir -p "$replicas"
cp -r "$root/Deploy/compose.yaml" "$root/Deploy/.env" "$root/Deploy/nginx.conf" "$root/Deploy/postgres" "$replicas/"
cp -r "$deploy/tls" "$replicas/"
cd "$replicas"
umask 077
mkdir -p secrets
openssl rand -base64 32 >secrets/db_password
openssl rand -base64 32 >secrets/passphrase
chown -R 10001:10001 secrets
umask 022
export COMPOSE_PROFILES=replicas
https_port=$(free_port)
export KEYCHAIND_PUBLISH=127.0.0.1:$https_port
base=https://keychaind.example:$https_port
tls_curl() { curl -sS --max-time 10 --cacert "$replicas/tls/tls.crt" --resolve "keychaind.example:$https_port:127.0.0.1" "$@"; }

# healthy SERVICE: a bounded poll (90 s) until the service's container reports healthy.
healthy() {
    local container
    container=$(docker-compose ps -q "$1" 2>/dev/null)
    for _ in $(seq 450); do
        [[ $("$docker" inspect -f '{{.State.Health.Status}}' "$container" 2>/dev/null) == healthy ]] && return 0
        sleep 0.2
    done
    docker-compose logs --tail 30 "$1" >&2
    return 1
}
# psql_on SERVICE SQL: one query on the service's server, as its superuser over the socket.
psql_on() { docker-compose exec -T "$1" psql -U keychaind -d keychaind -XAtc "$2" 2>/dev/null; }
# standby_of SERVICE: a bounded poll (90 s) until the server has a standby committing with it.
standby_of() {
    local deadline=$((SECONDS + 90))
    while ((SECONDS < deadline)); do
        [[ $(psql_on "$1" "SELECT state, sync_state FROM pg_stat_replication" || true) == "streaming|quorum" ]] && return 0
        sleep 0.2
    done
    psql_on "$1" "SELECT * FROM pg_stat_replication" >&2 || true
    return 1
}
compose up -d postgres postgres-standby || true
check "PostgreSQL's container turns healthy" healthy postgres
check "so does its standby's" healthy postgres-standby
check "the standby streams, and commits wait for it (sync_state quorum)" standby_of postgres
"$docker" run --rm --network keychaind_backend -v "$PWD/secrets:/secrets" --entrypoint keychaind \
    keychaind:latest init --data-dir /tmp/keychaind --key-file /secrets/instance.key \
    --database postgresql://keychaind@postgres:5432,postgres-standby:5432/keychaind --database-password-file /secrets/db_password \
    --passphrase-file /secrets/passphrase --admin-token-file /secrets/admin-token >"$tmp/replicas-init.log" 2>&1 ||
    fail_with_log "container: the README's init --database failed" "$tmp/replicas-init.log"
admin="Authorization: Bearer $(<secrets/admin-token)"
unlock() { tls_curl -o /dev/null -w '%{http_code}' -X POST "$base/v1/keychain/unlock" -d "{\"passphrase\":\"$(<secrets/passphrase)\"}" || true; }
compose up -d || true
check "three replicas come up behind nginx, locked" keychain_says '"replicas":{"live":3,"unlocked":0}'
check "one unlock through nginx is answered 200" test "$(unlock)" = 200
check "and unlocks all three" keychain_says '"replicas":{"live":3,"unlocked":3}'
check "one lock through nginx is answered 200" \
    test "$(tls_curl -o /dev/null -w '%{http_code}' -X POST "$base/v1/keychain/lock" -H "$admin" || true)" = 200
check "and locks all three" keychain_says '"replicas":{"live":3,"unlocked":0}'

# Deploy/README.md's failover: the primary stopped, the standby promoted; the replicas follow.
check "unlocked again" test "$(unlock)" = 200
add() {
    tls_curl -o /dev/null -w '%{http_code}' -X POST "$base/v1/items" -H "$admin" \
        -d "{\"class\":\"genericPassword\",\"service\":\"failover\",\"account\":\"$1\",\"valueData\":\"a2VwdA==\"}" || true
}
# added_again ACCOUNT: a bounded poll (30 s) until an add through nginx is answered 201.
added_again() {
    local code='' deadline=$((SECONDS + 30))
    while ((SECONDS < deadline)); do
        code=$(add "$1")
        [[ $code == 201 ]] && return 0
        sleep 0.2
    done
    echo "the last add was answered $code" >&2
    return 1
}
check "an item is added through nginx before the failover (201)" added_again before
compose stop postgres || true
docker-compose exec -T -u postgres postgres-standby pg_ctl promote -D /var/lib/postgresql/data >>"$tmp/compose.log" 2>&1 || true
check "after the primary stops and the standby is promoted, an add is answered 201" added_again after
check "the item acknowledged before the failover is read back" \
    test "$(tls_curl "$base/v1/items?service=failover&account=before&returnData=true" -H "$admin" || true)" = '{"items":[{"valueData":"a2VwdA=="}]}'
# refused_to_start: a bounded poll (90 s) until the old primary's log says why it will not start.
refused_to_start() {
    local deadline=$((SECONDS + 90))
    while ((SECONDS < deadline)); do
        docker-compose logs postgres 2>/dev/null | grep -qF "postgres-standby is the primary now" && return 0
        sleep 0.2
    done
    docker-compose logs --tail 30 postgres >&2
    return 1
}
compose up -d postgres || true
check "the old primary, started again as it was, refuses to start" refused_to_start
check "and the replicas still take writes (201)" test "$(add refused)" = 201
compose rm -sf postgres || true
"$docker" volume rm keychaind-postgres >/dev/null
"$docker" volume create keychaind-postgres >/dev/null
compose up -d postgres || true
check "rebuilt from an empty volume, it turns healthy" healthy postgres
psql_on postgres-standby "ALTER SYSTEM SET synchronous_standby_names = 'ANY 1 (*)'" >/dev/null || true
psql_on postgres-standby "SELECT pg_reload_conf()" >/dev/null || true
check "and streams as the new primary's synchronous standby" standby_of postgres-standby
check "and an add is answered 201" test "$(add rejoined)" = 201
compose down || true
cd "$root"

size=$("$docker" image inspect -f '{{.Size}}' keychaind:test)
echo "container: image keychaind:test is $((size / 1024 / 1024)) MiB (the keychaind release build, the Swift runtime linked in, on Debian bookworm-slim made here); its layers:"
"$docker" history --format '  {{.Size}}  {{.CreatedBy}}' keychaind:test | cut -c1-140

report container
