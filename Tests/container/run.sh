#!/usr/bin/env bash
# Issue 12: the container image built from Deploy/Dockerfile and checked for real.
#
# No image registry is reachable here, so the suite makes what the Dockerfile names itself:
#   - a Docker engine of its own (Debian's docker.io): dockerd with its data root, exec root and
#     socket under a temporary directory, stopped by its PID at the end (never a host-wide one);
#   - debian:bookworm-slim from debootstrap (minbase) and the Debian mirror apt uses;
#   - keychaind built for release on this (bookworm) host, put with the Swift runtime libraries
#     it links in Deploy/prebuilt/, for the Dockerfile's KEYCHAIND_BUILD=prebuilt stage (the
#     default stage compiles in the Swift image instead, which cannot be pulled here).
# Then it checks the image: it runs as uid 10001, ldd finds every library, `keychaind init` and
# `serve` work in it, no layer holds the test's passphrase, instance key or admin token (docker
# save, searched byte for byte), and it reports the image's size.
#
# Environment: KEYCHAIND_CONTAINER_MIRROR (default: the first Debian URI apt uses).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
# shellcheck source=Tests/lib.sh
source Tests/lib.sh

# dockerd and debootstrap need root.
if [[ $(id -u) -ne 0 ]]; then exec sudo --preserve-env=PATH,KEYCHAIND_CONTAINER_MIRROR bash "$0" "$@"; fi
missing=()
for package in docker.io debootstrap; do dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package"); done
if ((${#missing[@]})); then
    echo "container: installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

# Debian's client: a newer `docker` first on PATH may lack the builder this daemon speaks.
docker=/usr/bin/docker
make_tmp
engine=$(mktemp -d /tmp/keychaind-docker.XXXXXX)
remove_on_exit "$engine" "$root/Deploy/prebuilt"
export DOCKER_HOST=unix://$engine/docker.sock DOCKER_BUILDKIT=1

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

# --- the image ----------------------------------------------------------------------------------

swift build -c release --product keychaind --scratch-path "$root/.build-container" >"$tmp/build.log" 2>&1 ||
    fail_with_log "container: swift build failed" "$tmp/build.log"
binary="$root/.build-container/release/keychaind"
mkdir -p "$root/Deploy/prebuilt/swift"
cp "$binary" "$root/Deploy/prebuilt/keychaind"
# The Swift runtime libraries the binary links (the C ones come from Debian's packages).
swift_lib=$(dirname "$(ldd "$binary" | awk '/libswiftCore.so/ { print $3 }')")
ldd "$binary" | awk -v dir="$swift_lib/" 'index($3, dir) == 1 { print $3 }' | xargs -r cp -t "$root/Deploy/prebuilt/swift/"

"$docker" build --network host -f Deploy/Dockerfile --build-arg KEYCHAIND_BUILD=prebuilt -t keychaind:test . \
    >"$tmp/docker-build.log" 2>&1 || fail_with_log "container: docker build failed" "$tmp/docker-build.log"

run() { "$docker" run --rm --network none "$@"; }

check "the image runs as uid 10001" test "$(run --entrypoint id keychaind:test -u):$(run --entrypoint id keychaind:test -g)" = "10001:10001"
check "ldd finds every library keychaind links" \
    bash -c "! $docker run --rm --network none --entrypoint ldd keychaind:test /usr/local/bin/keychaind | grep -q 'not found'"

# A keychain made in the container, on a volume: the secrets the layers must not hold.
head -c 24 /dev/urandom | base64 >"$tmp/passphrase"
chmod 0644 "$tmp/passphrase"
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

size=$("$docker" image inspect -f '{{.Size}}' keychaind:test)
echo "container: image keychaind:test is $((size / 1024 / 1024)) MiB (keychaind release build, the Swift runtime it links, Debian bookworm-slim made here); its layers:"
"$docker" history --format '  {{.Size}}  {{.CreatedBy}}' keychaind:test | cut -c1-140

report container
