#!/usr/bin/env python3
"""costly PKCS#12 imports from nine connections while the operator unlocks, every unlock 200.

Usage: imports.py PORT ADMIN_TOKEN_FILE PASSPHRASE_FILE SECONDS

Makes a PKCS#12 whose MAC and encryption take 999,999 PBKDF2 iterations (the most the server
accepts), then, for SECONDS, nine connections post it with a wrong password: six with a token
that may write (more than the transfer queue holds), three with a token that may only read
metrics. Meanwhile the operator locks the
keychain and unlocks it with the right passphrase, again and again.

Fails (exit 1) unless every unlock is 200 (imports queue apart from unlocks: they never hold the
places unlocks wait in), every metrics-only import is 403 (refused before any derivation), and
every writer's import is 401 (the wrong password) or 429 (the transfer queue is full).
"""

import collections
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

WRITERS, METRICS_ONLY = 6, 3


def request(port: int, method: str, path: str, body: bytes = b"", headers: dict | None = None) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request(method, path, body, headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def make_token(port: int, admin: str, capabilities: list[str]) -> str:
    body = json.dumps({"name": "imports-" + capabilities[0], "accessGroups": ["*"], "capabilities": capabilities})
    status, answer = request(port, "POST", "/v1/tokens", body.encode(), {"Authorization": f"Bearer {admin}"})
    if status != 201:
        raise SystemExit(f"imports: could not create a token: {status} {answer[:200]!r}")
    return json.loads(answer)["token"]


def costly_pkcs12(directory: str) -> bytes:
    key, cert, p12 = (os.path.join(directory, name) for name in ("key.pem", "cert.pem", "costly.p12"))
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-subj", "/CN=imports", "-days", "1", "-keyout", key, "-out", cert],
                   check=True, capture_output=True)
    subprocess.run(["openssl", "pkcs12", "-export", "-iter", "999999", "-inkey", key, "-in", cert,
                    "-passout", "pass:the right one", "-out", p12], check=True, capture_output=True)
    with open(p12, "rb") as file:
        return file.read()


def main() -> int:
    port, admin_file, passphrase_file, seconds = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
    with open(admin_file) as file:
        admin = file.read().strip()
    with open(passphrase_file) as file:
        passphrase = file.read().rstrip("\n")
    with tempfile.TemporaryDirectory() as directory:
        p12 = costly_pkcs12(directory)
    writer = make_token(port, admin, ["write", "read"])
    metrics = make_token(port, admin, ["metrics"])

    until = time.monotonic() + seconds
    statuses: dict[str, list[int]] = {"writer": [], "metrics": []}
    lock = threading.Lock()

    def post(kind: str, token: str) -> None:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/x-pkcs12",
                   "X-Keychain-PKCS12-Passphrase": "wrong"}
        while time.monotonic() < until:
            status, _ = request(port, "POST", "/v1/items/import", p12, headers)
            with lock:
                statuses[kind].append(status)

    posters = [threading.Thread(target=post, args=("writer", writer)) for _ in range(WRITERS)]
    posters += [threading.Thread(target=post, args=("metrics", metrics)) for _ in range(METRICS_ONLY)]
    for poster in posters:
        poster.start()
    # Unlocks only once the writers' imports are queued: each writer has had an answer or waits.
    while time.monotonic() < until and len(statuses["writer"]) < WRITERS:
        time.sleep(0.05)  # polling a condition, not synchronisation by time
    unlocks: list[int] = []
    unlock_body = json.dumps({"passphrase": passphrase}).encode()
    while time.monotonic() < until:
        status, answer = request(port, "POST", "/v1/keychain/lock", b"", {"Authorization": f"Bearer {admin}"})
        if status != 200:
            raise SystemExit(f"imports: lock answered {status} {answer[:200]!r}")
        status, _ = request(port, "POST", "/v1/keychain/unlock", unlock_body)
        unlocks.append(status)
    for poster in posters:
        poster.join()

    writer_statuses = sorted(set(statuses["writer"]))
    metrics_statuses = sorted(set(statuses["metrics"]))
    print(f"imports: {len(unlocks)} unlocks {sorted(set(unlocks))}; writers' imports {len(statuses['writer'])} "
          f"{writer_statuses}; metrics-only imports {len(statuses['metrics'])} {metrics_statuses}")
    failures = []
    if not unlocks or any(status != 200 for status in unlocks):
        failures.append(f"the operator's unlocks answered {dict(collections.Counter(unlocks))} (status: count)")
    if metrics_statuses != [403]:
        failures.append(f"a metrics-only token's imports answered {metrics_statuses}, not only 403")
    if not set(writer_statuses) <= {401, 429} or 401 not in writer_statuses:
        failures.append(f"the writers' imports answered {writer_statuses}")
    for failure in failures:
        print(f"imports: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
