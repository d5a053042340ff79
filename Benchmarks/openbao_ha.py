#!/usr/bin/env python3
"""OpenBao's own failover, the anchor of the F rows: two `bao server` nodes in HA on one
PostgreSQL (storage "postgresql", ha_enabled); the active node killed with SIGKILL, then the
seconds until a KV version 2 write is acknowledged by the other, asked every 20 ms. The killed node comes back,
unsealed, as the standby of the next round.

usage: openbao_ha.py BAO PG_BIN WORKDIR ROUNDS OUT
Each round is a JSON line appended to OUT: {"label": "Fbao", "round", "first_s", "rate", "ok"}.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

BAO, PG_BIN, WORK, ROUNDS, OUT = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
UNPRIVILEGED = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if os.getuid() == 0 else []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, method, path, body=None, token=None, timeout=2):
    """(status, parsed body); status 0 when no answer came."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode())
    if token:
        request.add_header("X-Vault-Token", token)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as error:
        return error.code, None
    except (OSError, ValueError):
        return 0, None


def until(predicate, limit, what):
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} within {limit} s")
        time.sleep(0.02)


class Node:
    def __init__(self, n, pg_url):
        self.port, self.cluster_port = free_port(), free_port()
        self.dir = os.path.join(WORK, f"bao{n}")
        os.makedirs(self.dir, exist_ok=True)
        self.config = os.path.join(self.dir, "config.hcl")
        with open(self.config, "w") as file:
            file.write(f'''storage "postgresql" {{
  connection_url = "{pg_url}"
  ha_enabled     = "true"
}}
listener "tcp" {{
  address     = "127.0.0.1:{self.port}"
  tls_disable = true
}}
api_addr      = "http://127.0.0.1:{self.port}"
cluster_addr  = "https://127.0.0.1:{self.cluster_port}"
disable_mlock = true
''')
        self.process = None

    def start(self):
        log = open(os.path.join(self.dir, "log"), "a")
        self.process = subprocess.Popen([BAO, "server", f"-config={self.config}"], stdout=log, stderr=log)
        until(lambda: call(self.port, "GET", "/v1/sys/seal-status")[0] == 200, 30, f"bao on {self.port} did not answer")

    def unseal(self, key):
        call(self.port, "PUT", "/v1/sys/unseal", {"key": key})

    def health(self):
        return call(self.port, "GET", "/v1/sys/health")[0]  # 200 active, 429 standby

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.kill()


def main():
    pg_dir = os.path.join(WORK, "pg")
    os.makedirs(pg_dir)
    if UNPRIVILEGED:
        shutil.chown(WORK, "nobody")
        shutil.chown(pg_dir, "nobody")
    pg_port = free_port()
    data = os.path.join(pg_dir, "data")
    subprocess.run(UNPRIVILEGED + [f"{PG_BIN}/initdb", "-D", data, "-A", "trust", "-U", "postgres"], check=True,
                   capture_output=True)
    subprocess.run(UNPRIVILEGED + [f"{PG_BIN}/pg_ctl", "-D", data, "-l", os.path.join(pg_dir, "log"), "-w", "-o",
                                   f"-p {pg_port} -k {pg_dir} -c listen_addresses=127.0.0.1", "start"],
                   check=True, capture_output=True)
    nodes = []
    try:
        subprocess.run([f"{PG_BIN}/psql", "-h", "127.0.0.1", "-p", str(pg_port), "-U", "postgres", "-qc",
                        "CREATE DATABASE openbao"], check=True, capture_output=True)
        pg_url = f"postgres://postgres@127.0.0.1:{pg_port}/openbao?sslmode=disable"
        nodes = [Node(1, pg_url), Node(2, pg_url)]
        nodes[0].start()
        status, init = call(nodes[0].port, "PUT", "/v1/sys/init", {"secret_shares": 1, "secret_threshold": 1},
                            timeout=30)
        if status != 200:
            raise RuntimeError(f"bao init answered {status}")
        key, root = init["keys_base64"][0], init["root_token"]
        nodes[0].unseal(key)
        until(lambda: nodes[0].health() == 200, 30, "the first node did not turn active")
        nodes[1].start()
        nodes[1].unseal(key)
        until(lambda: nodes[1].health() == 429, 30, "the second node did not turn standby")
        call(nodes[0].port, "POST", "/v1/sys/mounts/secret", {"type": "kv", "options": {"version": "2"}}, root)

        def written(node):
            return call(node.port, "POST", "/v1/secret/data/ha", {"data": {"v": "x"}}, root, timeout=1)[0] == 200

        until(lambda: written(nodes[0]), 30, "the first KV write was not acknowledged")
        with open(OUT, "a") as out:
            for n in range(1, ROUNDS + 1):
                active = next(node for node in nodes if node.health() == 200)
                other = nodes[1] if active is nodes[0] else nodes[0]
                until(lambda: written(active), 30, "the active node did not take a write")
                active.kill()
                killed = time.monotonic()
                # A standby answers a write with a redirect to the active node: the write is taken
                # once the other node is active itself.
                until(lambda: written(other), 60, "no write was acknowledged after the kill")
                first = round(time.monotonic() - killed, 3)
                out.write(json.dumps({"label": "Fbao", "round": n, "first_s": first, "rate": None, "ok": True}) + "\n")
                out.flush()
                print(f"     OpenBao {n}: first write {first} s after the active node's kill", flush=True)
                active.start()
                active.unseal(key)
                until(lambda: active.health() == 429, 60, "the killed node did not return as the standby")
    finally:
        for node in nodes:
            node.stop()
        subprocess.run(UNPRIVILEGED + [f"{PG_BIN}/pg_ctl", "-D", data, "-m", "immediate", "stop"], capture_output=True)


if __name__ == "__main__":
    main()
