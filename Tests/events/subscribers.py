#!/usr/bin/env python3
"""Subscribers of keychaind's GET /v1/events over real sockets, for Tests/events/run.sh. Each
command prints one `ok NAME` or `FAIL NAME: why` line per check and exits 1 when one failed.

  subscribers.py order HOST PORT TOKEN ROUNDS
      a subscriber holds the lock event by the time the lock's answer arrives, every round
  subscribers.py many HOST PORT TOKEN COUNT PID
      COUNT idle subscribers all get the next event; the server's memory per subscriber
  subscribers.py behind HOST PORT TOKEN
      a subscriber that never reads does not hold back writes or a lock's answer
  subscribers.py through-proxy URL CA_FILE TOKEN
      prints the status, the content type and the stream's lines up to the first add event
      (at most 20 s)
"""

import json
import os
import select
import socket
import sys
import time

failures = []


def check(name, ok, why=""):
    print(("ok " if ok else "FAIL ") + name + ("" if ok else f": {why}"), flush=True)
    if not ok:
        failures.append(name)


def subscribe(host, port, token, receive_buffer=None):
    """A socket whose GET /v1/events has been answered: the head and the stream's first bytes read."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(10)
    sock.connect((host, port))
    sock.sendall(f"GET /v1/events HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    received = b""
    while b"keychaind events" not in received:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError(f"closed before the stream began: {received[:200]!r}")
        received += chunk
    if not received.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"not 200: {received[:200]!r}")
    return sock


def request(host, port, token, method, path, body=None):
    """One request on a connection of its own: (status, body)."""
    sock = socket.create_connection((host, port), timeout=10)
    payload = json.dumps(body).encode() if body is not None else b""
    sock.sendall(
        f"{method} {path} HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode() + payload)
    received = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        received += chunk
    sock.close()
    head, _, rest = received.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), rest


def pending(sock):
    """What the socket holds now, without waiting."""
    data = b""
    while select.select([sock], [], [], 0)[0]:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def wait_for(sock, needle, seconds=10):
    """Reads until `needle` arrives (True) or `seconds` pass (False)."""
    deadline = time.monotonic() + seconds
    data = b""
    while needle not in data:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([sock], [], [], left)[0]:
            return False
        chunk = sock.recv(65536)
        if not chunk:
            return False
        data += chunk
    return True


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def order(host, port, token, rounds):
    sock = subscribe(host, port, token)
    late = []
    for n in range(rounds):
        status, _ = request(host, port, token, "POST", "/v1/keychain/lock")
        # The answer is in: the event must already be in the subscriber's socket.
        seen = b"event: lock\n" in pending(sock)
        if status != 200 or not seen:
            late.append((n, status, seen))
        passphrase = os.environ["KEYCHAIND_PASSPHRASE"]
        status, _ = request(host, port, token, "POST", "/v1/keychain/unlock", {"passphrase": passphrase})
        if status != 200 or not wait_for(sock, b"event: unlock\n"):
            late.append((n, "unlock", status))
    check(f"the lock event is in the subscriber's socket when the lock's answer arrives ({rounds} rounds)", not late, late)


def many(host, port, token, count, pid):
    before = rss_kib(pid)
    socks = [subscribe(host, port, token) for _ in range(count)]
    after = rss_kib(pid)
    per = (after - before) * 1024 / count
    print(f"memory: {count} idle subscribers: {after - before} KiB more resident, {per:.0f} bytes each", flush=True)
    status, _ = request(host, port, token, "POST", "/v1/items",
                        {"class": "genericPassword", "service": "many-subscribers", "account": "a", "valueData": "eA=="})
    got = sum(1 for sock in socks if wait_for(sock, b"event: add\n"))
    check(f"{count} idle subscribers all get the next event", status == 201 and got == count, f"{got} of {count}, HTTP {status}")
    # A connection's memory pool is 32 KiB at most; an idle subscriber holds less than that.
    check("an idle subscriber costs the server less than 32 KiB", per < 32 * 1024, f"{per:.0f} bytes")
    for sock in socks:
        sock.close()


def behind(host, port, token):
    # A receive buffer of a few KiB that is never read: the server's writes to it stop at once.
    stuck = subscribe(host, port, token, receive_buffer=4096)
    statuses = set()
    for n in range(400):
        status, _ = request(host, port, token, "POST", "/v1/items",
                            {"class": "genericPassword", "service": f"behind-{n}", "account": "a",
                             "valueData": "eA==", "label": "x" * 200})
        statuses.add(status)
    check("writes go on while a subscriber never reads", statuses == {201}, statuses)
    status, _ = request(host, port, token, "POST", "/v1/keychain/lock")
    check("a lock is answered with a subscriber that never reads", status == 200, f"HTTP {status}")
    stuck.close()


def through_proxy(url, ca, token):
    import http.client
    import ssl
    import urllib.parse
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPSConnection(
        parts.hostname, parts.port, context=ssl.create_default_context(cafile=ca), timeout=20)
    connection.request("GET", "/v1/events", headers={"Authorization": f"Bearer {token}"})
    response = connection.getresponse()
    print("status", response.status, response.getheader("Content-Type"), flush=True)
    for line in iter(response.readline, b""):
        print(line.decode().rstrip("\n"), flush=True)
        if line == b"event: add\n":
            return


def main(argv):
    if argv[1] == "through-proxy":
        through_proxy(argv[2], argv[3], argv[4])
        return 0
    command, host, port, token = argv[1], argv[2], int(argv[3]), argv[4]
    if command == "order":
        order(host, port, token, int(argv[5]))
    elif command == "many":
        many(host, port, token, int(argv[5]), int(argv[6]))
    elif command == "behind":
        behind(host, port, token)
    else:
        sys.exit(__doc__)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
