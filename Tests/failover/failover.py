#!/usr/bin/env python3
"""PostgreSQL failover under two keychaind replicas, for real (started by Tests/failover/run.sh).

Two PostgreSQL servers, each alone in a network namespace this suite creates (so that a
partition drops packets instead of resetting connections), joined by a bridge: a primary and a
synchronous streaming standby (pg_basebackup, `synchronous_standby_names = 'ANY 1 (a, b)'`).
Two keychaind replicas on the multi-host URL listing both, behind nginx (Deploy/nginx.conf).

Each case runs under write and read load through nginx, plays the orchestrator's part (promote,
fence, rejoin) and then checks:
  - writes are acknowledged again within 2 s of the promotion (or of the repair);
  - every acknowledged write is readable afterwards, on both replicas;
  - no answer was a 500: a write that met the failure answered 503 errSecNotAvailable;
  - health answered 503 while no writable primary answered;
  - a token revoked before the failure is still refused, the unlock budget's count is kept, and a
    lock acknowledged after the promotion is seen by the other replica within 1 s.

usage: failover.py KEYCHAIND NGINX PG_BIN TMPDIR [bench ROUNDS OUT]
  With `bench`, the kill, fence and partition failovers ROUNDS times each, timed into OUT (one
  JSON line each, for Benchmarks/run.sh) instead of the checks.
"""
import faulthandler
import http.client
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "replicas"))
from cluster import b64, request, stored_accounts, wait_until  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KEYCHAIND, NGINX, PG_BIN, TMP = sys.argv[1:5]
TAG = os.environ.get("FAILOVER_TAG", f"kf{os.getpid() % 100000}")
SUBNET = f"10.{200 + os.getpid() % 50}.{os.getpid() // 50 % 250}"
UNPRIVILEGED = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
PASSPHRASE = "failover passphrase"

failures = []


def check(held, what):
    print(f"{'ok  ' if held else 'FAIL'} {what}", flush=True)
    if not held:
        failures.append(what)


def run(*command, ok=True, **options):
    result = subprocess.run(command, capture_output=True, text=True, **options)
    if ok and result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {result.stderr.strip()[-2000:]}")
    return result


class Network:
    """A namespace per server, each linked to this namespace by a veth pair of its own, and the two
    linked to each other by a third for replication: no packet is forwarded by this namespace,
    whose firewall (a container host's) may drop forwarded packets.

    Addresses, in SUBNET: this side of server a's link .1, a .2; of b's .5, b .6; between them
    a .9, b .10."""

    def __init__(self):
        self.namespaces = []
        self.links = []

    def add(self, name):
        namespace = f"{TAG}-{name}"
        run("ip", "netns", "add", namespace)
        self.namespaces.append(namespace)
        run("ip", "netns", "exec", namespace, "ip", "link", "set", "lo", "up")
        return namespace

    def link(self, a, a_address, b, b_address, name):
        """A veth pair between namespaces A and B (None: this one), with /30 addresses; the name
        of each end (the same in both namespaces)."""
        here, there = f"{TAG}{name}0", f"{TAG}{name}1"
        run("ip", "link", "add", here, "type", "veth", "peer", "name", there)
        self.links.append(here)
        for end, namespace, address in ((here, a, a_address), (there, b, b_address)):
            inside = ["ip", "netns", "exec", namespace, "ip"] if namespace else ["ip"]
            if namespace:
                run("ip", "link", "set", end, "netns", namespace)
            run(*inside, "addr", "add", f"{address}/30", "dev", end)
            run(*inside, "link", "set", end, "up")
        return here, there

    def remove(self):
        for namespace in self.namespaces:
            for pid in run("ip", "netns", "pids", namespace, ok=False).stdout.split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            run("ip", "netns", "del", namespace, ok=False)
        for link in self.links:
            run("ip", "link", "del", link, ok=False)


class Node:
    """One PostgreSQL server, alone in its namespace: ADDRESS for the replicas, PEER_ADDRESS for
    the other server."""

    def __init__(self, network, name, address, peer_address):
        self.name, self.address, self.peer_address = name, address, peer_address
        self.namespace = network.add(name)
        self.dir = os.path.join(TMP, "pg-" + name)
        self.data = os.path.join(self.dir, "data")
        self.cuts = []  # (namespace or None, link end): what a partition sets down
        os.mkdir(self.dir)
        os.chown(self.dir, 65534, 65534)

    def as_postgres(self, *command, ok=True):
        return run("ip", "netns", "exec", self.namespace, *UNPRIVILEGED, *command, ok=ok)

    def sql(self, statement, ok=True, unreplicated=False):
        """STATEMENT through the server's own socket (reachable when its network is not); with
        UNREPLICATED, committed without waiting for a standby (there is none yet)."""
        env = dict(os.environ, PGOPTIONS="-c synchronous_commit=local") if unreplicated else None
        return run(os.path.join(PG_BIN, "psql"), "-h", self.dir, "-p", "5432", "-U", "postgres", "-d", "postgres",
                   "-XAtqc", statement, ok=ok, env=env).stdout.strip()

    def settings(self):
        return "\n".join([
            f"listen_addresses = '{self.address},{self.peer_address}'", "port = 5432", f"unix_socket_directories = '{self.dir}'",
            "wal_log_hints = on", "synchronous_standby_names = 'ANY 1 (a, b)'", "wal_keep_size = '256MB'",
            "fsync = off", "log_min_messages = warning", ""])

    def initialize(self):
        self.as_postgres(os.path.join(PG_BIN, "initdb"), "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync")
        with open(os.path.join(self.data, "postgresql.conf"), "a") as conf:
            conf.write(self.settings())
        with open(os.path.join(self.data, "pg_hba.conf"), "a") as hba:
            hba.write(f"host all all {SUBNET}.0/24 trust\nhost replication all {SUBNET}.0/24 trust\n")

    def follow(self, primary):
        """Makes this (stopped) node a standby of PRIMARY, streaming as its application name. Its
        configuration files came from PRIMARY (a base backup or a rewind copies them): its own
        settings go back on top, and the primary's ALTER SYSTEM settings (a fence) go."""
        with open(os.path.join(self.data, "postgresql.conf"), "a") as conf:
            conf.write(self.settings())
        with open(os.path.join(self.data, "postgresql.auto.conf"), "w") as conf:
            conf.write(f"primary_conninfo = 'host={primary.peer_address} port=5432 user=postgres application_name={self.name}'\n")
        open(os.path.join(self.data, "standby.signal"), "w").close()
        run("chown", "-R", "nobody:nogroup", self.data)

    def base_backup(self, primary):
        self.as_postgres(os.path.join(PG_BIN, "pg_basebackup"), "-h", primary.peer_address, "-p", "5432", "-U", "postgres",
                         "-D", self.data, "-X", "stream", "--checkpoint=fast", "--no-sync")
        self.follow(primary)

    def rewind(self, primary):
        """Rejoins PRIMARY as its standby after a failover: pg_rewind undoes what this node wrote
        after their histories split (nothing it acknowledged: its standby never confirmed it).
        PRIMARY's control file names its new timeline only after a checkpoint: until then,
        pg_rewind would find both on one timeline and rewind nothing."""
        primary.sql("CHECKPOINT")
        self.as_postgres(os.path.join(PG_BIN, "pg_rewind"), "-D", self.data, "--no-sync",
                         f"--source-server=host={primary.peer_address} port=5432 user=postgres dbname=postgres")
        self.follow(primary)

    def start(self):
        self.as_postgres(os.path.join(PG_BIN, "pg_ctl"), "-D", self.data, "-l", os.path.join(self.dir, "log"), "-w",
                         "-t", "60", "start")

    def stop(self, mode="fast"):
        self.as_postgres(os.path.join(PG_BIN, "pg_ctl"), "-D", self.data, "-m", mode, "-w", "stop", ok=False)

    def kill(self):
        """The machine dies: every process of the namespace, with SIGKILL."""
        for pid in run("ip", "netns", "pids", self.namespace).stdout.split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
        wait_until(lambda: not run("ip", "netns", "pids", self.namespace).stdout.split(), 10)

    def promote(self):
        self.as_postgres(os.path.join(PG_BIN, "pg_ctl"), "-D", self.data, "-w", "promote")

    def set_synchronous(self, on):
        """Whether commits wait for a standby (the configuration's `ANY 1 (a, b)`) or not."""
        self.sql("ALTER SYSTEM RESET synchronous_standby_names" if on else
                 "ALTER SYSTEM SET synchronous_standby_names = ''")
        self.sql("SELECT pg_reload_conf()")

    def cut(self, down):
        """Sets this server's links down (no reset sent: packets are dropped) or up again."""
        for namespace, end in self.cuts:
            inside = ["ip", "netns", "exec", namespace] if namespace else []
            run(*inside, "ip", "link", "set", end, "down" if down else "up")

    def wait_streaming(self, standby):
        """Until STANDBY streams from this primary as a synchronous (quorum) standby."""
        held, _ = wait_until(lambda: self.sql(
            f"SELECT count(*) FROM pg_stat_replication WHERE application_name = '{standby.name}' "
            "AND state = 'streaming' AND sync_state IN ('sync', 'quorum')") == "1", 60)
        if not held:
            with open(os.path.join(standby.dir, "log")) as log:
                raise RuntimeError(f"{standby.name} does not stream from {self.name}; its log ends:\n{log.read()[-1500:]}")


class Replica:
    def __init__(self, n, url, data_dir):
        self.n, self.url, self.data_dir = n, url, data_dir
        self.port = free_port()
        self.log = os.path.join(TMP, f"replica{n}.log")
        self.process = None

    def start(self):
        root = ["--allow-root"] if os.getuid() == 0 else []
        with open(self.log, "a") as log:
            self.process = subprocess.Popen(
                [KEYCHAIND, "serve", "--data-dir", self.data_dir, "--database", self.url,
                 "--listen", f"127.0.0.1:{self.port}", "--trusted-proxy", "127.0.0.2", *root],
                stdout=log, stderr=subprocess.STDOUT)
        held, _ = wait_until(lambda: self.answers(), 30)
        if not held:
            raise RuntimeError(f"replica {self.n} did not start; see {self.log}")

    def answers(self):
        try:
            return request(self.port, "GET", "/v1/health", timeout=2)[0] in (200, 503)
        except OSError:
            return False

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    """One client's keep-alive connection to nginx over TLS, made again after any error (a
    request is never sent twice)."""

    def __init__(self, port, token):
        self.port, self.token, self.connection = port, token, None

    def call(self, method, path, body=None):
        """(status, parsed body), or (the error's name, None) when no answer came."""
        if self.connection is None:
            self.connection = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=20,
                                                          context=ssl._create_unverified_context())
        headers = {"Authorization": "Bearer " + self.token}
        data = None
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        try:
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as error:
            self.connection.close()
            self.connection = None
            return type(error).__name__, None
        if response.will_close:
            self.connection.close()
            self.connection = None
        try:
            return response.status, json.loads(raw) if raw else None
        except ValueError:
            return response.status, None


class Load:
    """Writers and readers through nginx until stopped, each on a keep-alive connection; every
    acknowledged add kept with the time its answer came, every answer counted by status."""

    def __init__(self, port, token, service, ref):
        self.port, self.token, self.service, self.ref = port, token, service, ref
        self.stopping = threading.Event()
        self.acknowledged = []  # (time answered, account)
        self.answers = {}
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.write, args=(n,)) for n in range(4)] + \
            [threading.Thread(target=self.read)]

    def count(self, key):
        with self.lock:
            self.answers[key] = self.answers.get(key, 0) + 1

    def call(self, client, method, path, body=None):
        status, answer = client.call(method, path, body)
        if status == 503 and (answer or {}).get("status") != -25291:
            status = "503 without errSecNotAvailable"
        return status

    def write(self, n):
        client, k = Client(self.port, self.token), 0
        while not self.stopping.is_set():
            k += 1
            account = f"{self.service}-{n}-{k}"
            status = self.call(client, "POST", "/v1/items", {"class": "genericPassword", "service": self.service,
                                                             "account": account, "valueData": b64(account)})
            if status == 201:
                with self.lock:
                    self.acknowledged.append((time.monotonic(), account))
            self.count(f"add {status}")
            if status != 201:
                time.sleep(0.02)  # a client's pause before it retries, not a synchronisation

    def read(self):
        client = Client(self.port, self.token)
        while not self.stopping.is_set():
            status = self.call(client, "GET", f"/v1/items/{self.ref}?returnData=true")
            self.count(f"read {status}")
            if status != 200:
                time.sleep(0.02)

    def start(self):
        for thread in self.threads:
            thread.start()
        return self

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join()

    def first_acknowledged_after(self, moment):
        with self.lock:
            return min((t for t, _ in self.acknowledged if t > moment), default=None)


def budget(replica, token):
    """The failures the unlock budget counts, as REPLICA's metrics say."""
    conn = http.client.HTTPConnection("127.0.0.1", replica.port, timeout=10)
    try:
        conn.request("GET", "/metrics", headers={"Authorization": "Bearer " + token})
        response = conn.getresponse()
        text = response.read().decode()
    finally:
        conn.close()
    match = re.search(r"^keychaind_unlock_budget_failures (\d+)", text, re.M)
    return int(match.group(1)) if response.status == 200 and match else None


class Suite:
    def __init__(self):
        self.network = Network()
        a = Node(self.network, "a", f"{SUBNET}.2", f"{SUBNET}.9")
        b = Node(self.network, "b", f"{SUBNET}.6", f"{SUBNET}.10")
        _, a_end = self.network.link(None, f"{SUBNET}.1", a.namespace, a.address, "a")
        _, b_end = self.network.link(None, f"{SUBNET}.5", b.namespace, b.address, "b")
        ab_a, ab_b = self.network.link(a.namespace, a.peer_address, b.namespace, b.peer_address, "ab")
        a.cuts = [(a.namespace, a_end), (a.namespace, ab_a)]
        b.cuts = [(b.namespace, b_end), (b.namespace, ab_b)]
        self.nodes = [a, b]
        self.replicas = []
        self.nginx = None
        self.clients = 0

    def set_up(self):
        a, b = self.nodes
        a.initialize()
        a.start()
        a.sql("CREATE DATABASE keychain", unreplicated=True)
        b.base_backup(a)
        b.start()
        a.wait_streaming(b)
        url = f"postgresql://postgres@{a.address}:5432,{b.address}:5432/keychain"
        with open(os.path.join(TMP, "pass"), "w") as f:
            f.write(PASSPHRASE + "\n")
        os.chmod(os.path.join(TMP, "pass"), 0o600)
        r1, r2 = os.path.join(TMP, "r1"), os.path.join(TMP, "r2")
        run(KEYCHAIND, "init", "--data-dir", r1, "--database", url, "--passphrase-file", os.path.join(TMP, "pass"),
            "--admin-token-file", os.path.join(TMP, "admin"))
        self.admin = open(os.path.join(TMP, "admin")).read().strip()
        os.mkdir(r2, 0o700)
        with open(os.path.join(r1, "instance.key"), "rb") as src, open(os.path.join(r2, "instance.key"), "wb") as dst:
            dst.write(src.read())
        os.chmod(os.path.join(r2, "instance.key"), 0o600)
        self.replicas = [Replica(1, url, r1), Replica(2, url, r2)]
        for replica in self.replicas:
            replica.start()
        status, _, _ = request(self.replicas[0].port, "POST", "/v1/keychain/unlock", {"passphrase": PASSPHRASE})
        if status != 200:
            raise RuntimeError(f"unlock answered {status}")
        self.start_nginx()
        status, body, _ = request(self.replicas[0].port, "POST", "/v1/items",
                                  {"class": "genericPassword", "service": "read-load", "valueData": b64("secret")},
                                  token=self.admin)
        self.ref = body["items"][0]["persistentRef"]
        # Two wrong passphrases: the budget's count that every case checks is kept.
        self.wrong_unlocks(self.replicas[1])
        check([budget(r, self.admin) for r in self.replicas] == [2, 2], "set-up: the unlock budget counts 2 failures")
        self.primary, self.standby = a, b

    def wrong_unlocks(self, replica):
        """Two wrong passphrases, each from an address of its own (through the trusted proxy's
        address, 127.0.0.2), so that the per-address throttle never refuses one uncounted."""
        for _ in range(2):
            self.clients += 1
            conn = http.client.HTTPConnection("127.0.0.1", replica.port, timeout=10, source_address=("127.0.0.2", 0))
            try:
                conn.request("POST", "/v1/keychain/unlock", body=b'{"passphrase": "wrong"}',
                             headers={"Content-Type": "application/json",
                                      "X-Forwarded-For": f"192.0.2.{self.clients}"})
                status = conn.getresponse().status
            finally:
                conn.close()
            if status != 401:
                raise RuntimeError(f"a wrong passphrase answered {status}, not 401")

    def start_nginx(self):
        prefix = os.path.join(TMP, "nginx")
        os.mkdir(prefix, 0o755)
        self.proxy_port = free_port()
        run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days",
            "1", "-subj", "/CN=localhost", "-keyout", f"{prefix}/tls.key", "-out", f"{prefix}/tls.crt")
        run("bash", os.path.join(ROOT, "Deploy/render-nginx-test.sh"), os.path.join(ROOT, "Deploy/nginx.conf"),
            f"{prefix}/nginx.conf", str(self.proxy_port), ",".join(str(r.port) for r in self.replicas),
            f"{prefix}/tls.crt", f"{prefix}/tls.key", prefix)
        self.nginx = subprocess.Popen([NGINX, "-p", prefix + "/", "-e", f"{prefix}/error.log", "-c",
                                       f"{prefix}/nginx.conf", "-g", "daemon off;"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        held, _ = wait_until(lambda: self.proxied_health() == 200, 20)
        if not held:
            with open(f"{prefix}/error.log") as log:
                raise RuntimeError("nginx did not start: " + log.read()[-2000:])

    def proxied_health(self):
        try:
            return request(self.proxy_port, "GET", "/v1/health", tls=True, timeout=5)[0]
        except OSError:
            return None

    def healths(self):
        answers = []
        for replica in self.replicas:
            try:
                answers.append(request(replica.port, "GET", "/v1/health", timeout=10)[0])
            except OSError as error:
                answers.append(type(error).__name__)
        return answers

    def case(self, name, fail, repair, after=None, expect_unavailable=True):
        """NAME: load, then FAIL(); health watched until REPAIR() returns (the moment the clock of
        the 2 s bound starts), then the checks; AFTER() puts the nodes back into a primary and a
        synchronous standby."""
        print(f"--- {name}", flush=True)
        service = f"fo-{name.replace(' ', '-')}"
        status, body, _ = request(self.replicas[0].port, "POST", "/v1/tokens",
                                  {"name": "revoked-" + service, "accessGroups": ["*"], "capabilities": ["read"]},
                                  token=self.admin)
        revoked = body["token"]
        request(self.replicas[0].port, "DELETE", "/v1/tokens/" + body["id"], token=self.admin)
        load = Load(self.proxy_port, self.admin, service, self.ref).start()
        held, _ = wait_until(lambda: len(load.acknowledged) >= 50, 20)
        check(held, f"{name}: writes acknowledged before the failure")
        watching = threading.Event()
        seen = set()

        def watch():
            while not watching.is_set():
                seen.update(self.healths())
                time.sleep(0.05)
        watcher = threading.Thread(target=watch)
        watcher.start()
        fail()
        repair()
        repaired = time.monotonic()
        watching.set()
        # Beside the load through nginx: how soon replica 1 itself takes a write.
        direct = {"class": "genericPassword", "service": service + "-direct", "valueData": b64("x")}
        held, direct_took = wait_until(lambda: request(self.replicas[0].port, "POST", "/v1/items", dict(
            direct, account=str(time.monotonic())), token=self.admin, timeout=10)[0] == 201, 10)
        print(f"     {name}: replica 1 took a write {direct_took:.3f} s after the repair", flush=True)
        watcher.join()
        held, _ = wait_until(lambda: load.first_acknowledged_after(repaired) is not None, 10)
        first = load.first_acknowledged_after(repaired)
        took = first - repaired if first is not None else None
        check(took is not None and took <= 2.0,
              f"{name}: a write acknowledged {took if took is None else round(took, 3)} s after the repair (bound 2 s)")
        if expect_unavailable:
            check(503 in seen, f"{name}: health answered 503 while no writable primary answered (saw {sorted(map(str, seen))})")
        # The load goes on a second after the repair: writes keep being acknowledged, not just one.
        wait_until(lambda: load.first_acknowledged_after(repaired + 1) is not None, 5)
        load.stop()
        unexpected = {k: v for k, v in load.answers.items() if not re.match(r"(add 201|add 503|read 200|read 503)$", k)}
        check(not unexpected, f"{name}: every answer 2xx or 503 errSecNotAvailable ({dict(sorted(load.answers.items()))})")
        acknowledged = {account for _, account in load.acknowledged}
        for replica in self.replicas:
            stored = stored_accounts(replica.port, self.admin, service)
            lost = acknowledged - (stored or set())
            check(stored is not None and not lost,
                  f"{name}: all {len(acknowledged)} acknowledged writes readable on replica {replica.n} ({len(lost)} lost)")
            check(request(replica.port, "GET", "/v1/keychain", token=revoked)[0] == 401,
                  f"{name}: the token revoked before the failure is refused by replica {replica.n}")
            check(budget(replica, self.admin) == 2, f"{name}: replica {replica.n} keeps the unlock budget's 2 failures")
        one, other = self.replicas
        status, _, _ = request(one.port, "POST", "/v1/keychain/lock", token=self.admin)
        held, took = wait_until(
            lambda: request(other.port, "GET", f"/v1/items/{self.ref}?returnData=true", token=self.admin)[0] == 423, 3)
        check(status == 200 and held and took <= 1.0,
              f"{name}: a lock on replica 1 refuses secrets on replica 2 after {took:.3f} s (bound 1 s)")
        status, _, _ = request(one.port, "POST", "/v1/keychain/unlock", {"passphrase": PASSPHRASE})
        held, _ = wait_until(lambda: request(other.port, "GET", f"/v1/items/{self.ref}?returnData=true",
                                             token=self.admin)[0] == 200, 3)
        check(status == 200 and held, f"{name}: unlocked again on both replicas")
        # The unlock reset the budget: two more wrong passphrases for the next case.
        self.wrong_unlocks(other)
        if after:
            after()

    def swap(self):
        self.primary, self.standby = self.standby, self.primary

    def rejoin(self):
        """The old primary (stopped) rewinds and follows the new one, which waits for it again."""
        self.standby.rewind(self.primary)
        self.standby.start()
        self.primary.set_synchronous(True)
        self.primary.wait_streaming(self.standby)

    # --- the failures, and the orchestrator's answers to them -----------------------------------

    def promote(self):
        # The orchestrator's part: the new primary has no standby until the old one rejoins, so
        # it commits without one meanwhile (Patroni's synchronous_mode, not strict).
        self.standby.set_synchronous(False)
        self.standby.promote()
        self.swap()

    def kill(self):
        self.primary.kill()
        time.sleep(1)  # the orchestrator's detection: writes meet no primary meanwhile

    def fence(self):
        self.primary.sql("ALTER SYSTEM SET default_transaction_read_only = on")
        self.primary.sql("SELECT pg_reload_conf()")
        time.sleep(1)  # the orchestrator's detection, as for a kill

    def after_fence(self):
        self.standby.stop()
        self.rejoin()

    def partition(self):
        self.primary.cut(True)
        time.sleep(6)  # longer than a connection takes to notice (4 s), as any orchestrator's detection

    def after_partition(self):
        self.standby.stop("immediate")  # the isolated old primary, stopped as its orchestrator would
        self.standby.cut(False)
        self.rejoin()

    def switchover(self):
        self.primary.stop("fast")

    def lose_standby(self):
        self.standby.kill()
        time.sleep(1)

    def relax(self):
        self.primary.set_synchronous(False)

    def standby_back(self):
        self.standby.start()
        self.primary.set_synchronous(True)
        self.primary.wait_streaming(self.standby)

    def failovers(self):
        """Each failover by name: its failure, the promotion, and the old primary's rejoining."""
        return {"kill": (self.kill, self.promote, self.rejoin), "fence": (self.fence, self.promote, self.after_fence),
                "partition": (self.partition, self.promote, self.after_partition),
                "switchover": (self.switchover, self.promote, self.rejoin)}

    def run(self):
        self.set_up()
        for name, (fail, repair, after) in self.failovers().items():
            self.case(name, fail, repair, after=after)
        self.case("standby lost", self.lose_standby, self.relax, after=self.standby_back, expect_unavailable=False)

    def bench(self, rounds, out):
        """ROUNDS failovers of each kind under the same load, each a JSON line in OUT: seconds from
        the promotion to the first acknowledged write, and to the first quarter second whose
        acknowledged writes reach 90 % of the rate before the failure."""
        self.set_up()
        with open(out, "a") as results:
            for name in ("kill", "fence", "partition"):
                fail, repair, after = self.failovers()[name]
                for n in range(1, rounds + 1):
                    load = Load(self.proxy_port, self.admin, f"bench-{name}-{n}", self.ref).start()
                    wait_until(lambda: len(load.acknowledged) >= 50, 20)
                    began = time.monotonic()
                    time.sleep(2)  # the rate before the failure is measured over these 2 s
                    before = sum(1 for t, _ in list(load.acknowledged) if t >= began) / 2
                    fail()
                    repair()
                    repaired = time.monotonic()
                    wait_until(lambda: time.monotonic() - repaired > 5, 6)
                    load.stop()
                    times = sorted(t for t, _ in load.acknowledged if t > repaired)
                    first = round(times[0] - repaired, 3) if times else None
                    full, window = None, 0.25
                    for k in range(int(5 / 0.05)):
                        start = repaired + k * 0.05
                        if sum(1 for t in times if start <= t < start + window) >= 0.9 * before * window:
                            full = round(start + window - repaired, 3)
                            break
                    results.write(json.dumps({"label": "F" + name, "round": n, "first_s": first, "full_s": full,
                                              "rate": before, "ok": first is not None and full is not None}) + "\n")
                    results.flush()
                    print(f"     {name} {n}: first write {first} s, full rate {full} s after the promotion "
                          f"({before:.0f} adds/s before)", flush=True)
                    after()

    def tear_down(self):
        if self.nginx:
            self.nginx.terminate()
            self.nginx.wait(10)
        for replica in self.replicas:
            replica.stop()
        for node in self.nodes:
            node.stop("immediate")
        self.network.remove()


def main():
    # A hang anywhere ends the suite, with every thread's stack: it never outlives its bound.
    faulthandler.dump_traceback_later(600, exit=True)
    suite = None
    try:
        suite = Suite()
        if len(sys.argv) == 8 and sys.argv[5] == "bench":
            suite.bench(int(sys.argv[6]), sys.argv[7])
        else:
            suite.run()
    except Exception as error:  # a set-up or orchestration step failed: the suite fails, saying which
        check(False, f"the suite stopped: {error}")
        traceback.print_exc()
        if os.environ.get("FAILOVER_DEBUG") and suite:
            for node in suite.nodes:
                print(node.name, node.sql("SELECT application_name, state, wait_event_type, wait_event, left(query, 60) "
                                          "FROM pg_stat_activity", ok=False), node.sql("SELECT pg_is_in_recovery()", ok=False))
            for node in suite.nodes:
                print(f"--- log of {node.name}:\n" + open(os.path.join(node.dir, "log")).read()[-3000:])
    finally:
        if suite:
            suite.tear_down()
    print(f"failover: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
