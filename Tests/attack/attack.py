#!/usr/bin/env python3
"""Slow clients and anonymous load against a keychaind with no proxy in front.

Usage: attack.py PORT PID SECONDS one|spread

For SECONDS, an attacker tries to hold 2,000 connections, each sending a partial request head
and then one more header line every 3 s, and opening a new one whenever the server closes one
(at most 200 new connections a second): all from 127.0.0.2 (`one`), or from 40 addresses,
127.0.1.1 to 127.0.1.40, 50 connections each (`spread`: under the per-address limit, so that
the head deadline and the eviction at the connection limit are what answers it). From
127.0.0.4, 8 clients post unlock bodies with wrong passphrases as fast as they are answered.
Meanwhile a well-behaved client from 127.0.0.3 asks for GET /v1/health?lockedcode=200 on a new
connection every 250 ms.

Fails (exit 1) when the well-behaved client waited more than 1 s for any answer, when the
server's resident memory grew by more than 64 MiB, or when the attack could not be mounted
(fewer than 1,000 connection attempts). Prints what happened.
"""

import http.client
import selectors
import socket
import sys
import threading
import time

ATTACKER, VICTIM, UNLOCKER = "127.0.0.2", "127.0.0.3", "127.0.0.4"
CONNECTIONS = 2000
TRICKLE_EVERY = 3.0
NEW_PER_SECOND = 200


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Attacker(threading.Thread):
    """Holds up to CONNECTIONS trickling connections from ATTACKER."""

    def __init__(self, port: int, until: float, spread: bool):
        super().__init__(daemon=True)
        self.port, self.until = port, until
        self.sources = [f"127.0.1.{n}" for n in range(1, 41)] if spread else [ATTACKER]
        self.attempts = self.cut = self.refused = 0
        self.most_open = 0

    def run(self) -> None:
        selector = selectors.DefaultSelector()
        open_since: dict[socket.socket, float] = {}
        next_line: dict[socket.socket, float] = {}
        budget_second, budget = 0, 0
        while time.monotonic() < self.until:
            now = time.monotonic()
            if int(now) != budget_second:
                budget_second, budget = int(now), NEW_PER_SECOND
            while len(open_since) < CONNECTIONS and budget > 0:
                budget -= 1
                self.attempts += 1
                sock = socket.socket()
                sock.setblocking(False)
                sock.bind((self.sources[self.attempts % len(self.sources)], 0))
                try:
                    sock.connect(("127.0.0.1", self.port))
                except BlockingIOError:
                    pass
                except OSError:
                    self.refused += 1
                    sock.close()
                    continue
                selector.register(sock, selectors.EVENT_READ)
                open_since[sock] = now
                next_line[sock] = now
            self.most_open = max(self.most_open, len(open_since))
            for sock, due in list(next_line.items()):
                if due <= now:
                    line = b"GET /v1/health?lockedcode=200 HTTP/1.1\r\nHost: x\r\n" if open_since[sock] == due else b"X-Slow: a\r\n"
                    try:
                        sock.send(line)
                        next_line[sock] = now + TRICKLE_EVERY
                    except (BlockingIOError, InterruptedError):
                        pass
                    except OSError:
                        next_line[sock] = float("inf")
            for key, _ in selector.select(timeout=0.05):
                sock = key.fileobj
                try:
                    data = sock.recv(4096)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if not data:
                    self.cut += 1
                    selector.unregister(sock)
                    sock.close()
                    del open_since[sock], next_line[sock]
        for sock in open_since:
            sock.close()


class Unlocker(threading.Thread):
    """Posts wrong passphrases from UNLOCKER until `until`."""

    def __init__(self, port: int, until: float):
        super().__init__(daemon=True)
        self.port, self.until = port, until
        self.statuses: dict[int | str, int] = {}

    def run(self) -> None:
        # Keep-alive: a new connection per attempt would soon run out of ports bound to UNLOCKER.
        connection = None
        while time.monotonic() < self.until:
            try:
                if connection is None:
                    connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5, source_address=(UNLOCKER, 0))
                connection.request("POST", "/v1/keychain/unlock", body=b'{"passphrase":"wrong"}',
                                   headers={"Content-Type": "application/json"})
                response = connection.getresponse()
                response.read()
                status = response.status
                if response.will_close:
                    connection.close()
                    connection = None
            except (OSError, http.client.HTTPException) as error:
                status = type(error).__name__
                connection = None
            self.statuses[status] = self.statuses.get(status, 0) + 1


def main() -> int:
    port, pid, seconds, mode = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    rss_before = rss_kib(pid)
    until = time.monotonic() + seconds
    attacker = Attacker(port, until, spread=mode == "spread")
    unlockers = [Unlocker(port, until) for _ in range(8)]
    attacker.start()
    for unlocker in unlockers:
        unlocker.start()
    waits, failures = [], []
    time.sleep(1)  # not synchronisation: the attack's first second, before the victim starts
    while time.monotonic() < until - 0.5:
        began = time.monotonic()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(VICTIM, 0))
            connection.request("GET", "/v1/health?lockedcode=200")
            status = connection.getresponse().status
            connection.close()
            if status != 200:
                failures.append(f"status {status}")
        except OSError as error:
            failures.append(str(error))
        waits.append(time.monotonic() - began)
        time.sleep(max(0.0, 0.25 - (time.monotonic() - began)))  # the victim's pace
    attacker.join()
    for unlocker in unlockers:
        unlocker.join()
    rss_after = rss_kib(pid)
    statuses: dict[int | str, int] = {}
    for unlocker in unlockers:
        for status, count in unlocker.statuses.items():
            statuses[status] = statuses.get(status, 0) + count
    worst = max(waits) if waits else float("inf")
    print(f"attacker ({mode}): {attacker.attempts} connections tried, at most {attacker.most_open} open at once on its side, "
          f"{attacker.cut} cut or refused by the server")
    print(f"unlocks from {UNLOCKER}: {dict(sorted(statuses.items(), key=str))}")
    print(f"well-behaved client: {len(waits)} requests, slowest {worst * 1000:.0f} ms, failures {failures[:3]}")
    print(f"server VmRSS: {rss_before // 1024} MiB before, {rss_after // 1024} MiB after")
    ok = True
    if attacker.attempts < 1000:
        print("FAIL: the attack made fewer than 1,000 connection attempts")
        ok = False
    if failures or worst > 1.0:
        print("FAIL: the well-behaved client waited more than 1 s or was not answered")
        ok = False
    if rss_after - rss_before > 64 * 1024:
        print("FAIL: the server's memory grew by more than 64 MiB")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
