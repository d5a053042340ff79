#!/usr/bin/env python3
"""The concurrent and timed checks of Tests/replicas/run.sh, against replicas on 127.0.0.1.

Each subcommand prints one line per finding and exits 0 when every check held, 1 otherwise.
Every wait is bounded; a propagation is timed from the moment the causing request was answered.
"""
import base64
import http.client
import json
import os
import signal
import ssl
import sys
import threading
import time


def request(port, method, path, body=None, token=None, headers=None, timeout=15, tls=False):
    """One request on a new connection: (status, parsed JSON body or None, headers). With `tls`,
    over TLS to the test's proxy (its certificate is self-signed)."""
    if tls:
        conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout, context=ssl._create_unverified_context())
    else:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        all_headers = dict(headers or {})
        if token:
            all_headers["Authorization"] = "Bearer " + token
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        conn.request(method, path, body=data, headers=all_headers)
        response = conn.getresponse()
        raw = response.read()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        return response.status, parsed, dict(response.getheaders())
    finally:
        conn.close()


def b64(text):
    return base64.b64encode(text.encode()).decode()


def wait_until(predicate, limit):
    """Polls predicate every 10 ms until it holds or `limit` seconds pass: (held, seconds taken)."""
    start = time.monotonic()
    while True:
        if predicate():
            return True, time.monotonic() - start
        if time.monotonic() - start > limit:
            return False, time.monotonic() - start
        time.sleep(0.01)


def state(port, token):
    status, body, _ = request(port, "GET", "/v1/keychain", token=token)
    return body.get("state") if status == 200 and body else None


def propagation(args):
    """lock|unlock|sigusr1|settings|revoke FROM TO TOKEN [PASSPHRASE_FILE | PID]: the change made
    on FROM is seen on TO within 1 s of FROM's answer."""
    what, source, target, token = args[0], int(args[1]), int(args[2]), args[3]
    if what == "unlock":
        with open(args[4]) as f:
            passphrase = f.readline().rstrip("\n")
        status, _, _ = request(source, "POST", "/v1/keychain/unlock", {"passphrase": passphrase})
        seen = lambda: state(target, token) == "unlocked"
    elif what == "lock":
        status, _, _ = request(source, "POST", "/v1/keychain/lock", token=token)
        seen = lambda: state(target, token) == "locked"
    elif what == "sigusr1":
        os.kill(int(args[4]), 10)
        status = 200
        seen = lambda: state(target, token) == "locked"
    elif what == "settings":
        status, _, _ = request(source, "PUT", "/v1/keychain/settings", {"lockInterval": 1234}, token=token)
        seen = lambda: (request(target, "GET", "/v1/keychain/settings", token=token)[1] or {}).get("lockInterval") == 1234
    else:  # revoke: a token created on FROM, used on TO, revoked on FROM
        status, body, _ = request(source, "POST", "/v1/tokens", {"name": "propagation", "accessGroups": ["a"],
                                                                  "capabilities": ["read"]}, token=token)
        secret, token_id = body["token"], body["id"]
        used, _, _ = request(target, "GET", "/v1/keychain", token=secret)
        if used != 200:
            print(f"FAIL revoke: the new token was refused on the other replica before its revocation ({used})")
            return 1
        status, _, _ = request(source, "DELETE", "/v1/tokens/" + token_id, token=token)
        seen = lambda: request(target, "GET", "/v1/keychain", token=secret)[0] == 401
    if status not in (200, 204):
        print(f"FAIL {what}: the request on {source} answered {status}")
        return 1
    held, took = wait_until(seen, 3.0)
    verdict = "ok  " if held and took <= 1.0 else "FAIL"
    print(f"{verdict} {what} on {source} seen on {target} after {took:.3f} s (bound 1 s)")
    return 0 if held and took <= 1.0 else 1


def race(args):
    """ROUNDS PORT_A PORT_B TOKEN: the same item added on both replicas at once, ROUNDS times:
    exactly one 201 and one 409 each time."""
    rounds, a, b, token = int(args[0]), int(args[1]), int(args[2]), args[3]
    bad = 0
    for n in range(rounds):
        body = {"class": "genericPassword", "service": "race", "account": f"round-{n}", "valueData": b64("x")}
        statuses = [None, None]
        barrier = threading.Barrier(2)

        def add(slot, port):
            barrier.wait()
            statuses[slot] = request(port, "POST", "/v1/items", body, token=token)[0]

        threads = [threading.Thread(target=add, args=(0, a)), threading.Thread(target=add, args=(1, b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if sorted(statuses) != [201, 409]:
            bad += 1
            print(f"FAIL race round {n}: {statuses}")
    found = request(a, "GET", "/v1/items?service=race&matchLimit=all", token=token)[1]
    count = len(found["items"]) if found else 0
    print(f"{'ok  ' if bad == 0 and count == rounds else 'FAIL'} race: {rounds} rounds, {bad} without exactly one 201 "
          f"and one 409; {count} items stored")
    return 0 if bad == 0 and count == rounds else 1


def if_match(args):
    """INCREMENTS PORT_A PORT_B TOKEN: a counter item incremented by one client on each replica
    with If-Match check-and-set, retrying on 412: no increment is lost, and every version is
    written by exactly one successful update."""
    increments, ports, token = int(args[0]), [int(args[1]), int(args[2])], args[3]
    status, body, headers = request(ports[0], "POST", "/v1/items",
                                    {"class": "genericPassword", "service": "counter", "valueData": b64("0")}, token=token)
    ref = body["items"][0]["persistentRef"]
    history = [[], []]

    def client(slot):
        done = 0
        while done < increments:
            status, body, headers = request(ports[slot], "GET", f"/v1/items/{ref}?returnData=true", token=token)
            value = int(base64.b64decode(body["items"][0]["valueData"]))
            status, body, headers = request(ports[slot], "PATCH", f"/v1/items/{ref}", {"valueData": b64(str(value + 1))},
                                            token=token, headers={"If-Match": headers["ETag"]})
            if status == 200:
                history[slot].append((value + 1, headers["ETag"]))
                done += 1
            elif status != 412:
                print(f"FAIL if-match: update answered {status}")
                return

    threads = [threading.Thread(target=client, args=(slot,)) for slot in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    final = int(base64.b64decode(request(ports[1], "GET", f"/v1/items/{ref}?returnData=true", token=token)[1]["items"][0]["valueData"]))
    values = sorted(v for h in history for v, _ in h)
    etags = [e for h in history for _, e in h]
    held = final == 2 * increments and values == list(range(1, 2 * increments + 1)) and len(set(etags)) == len(etags)
    print(f"{'ok  ' if held else 'FAIL'} if-match: {2 * increments} increments from two replicas, final value {final}, "
          f"each value written once: {values == list(range(1, 2 * increments + 1))}")
    return 0 if held else 1


def writer(args):
    """PORT TOKEN SERVICE ACKFILE [tls]: adds items through PORT until SIGTERM, each with its own
    account, appending each acknowledged (201) account to ACKFILE as soon as it is answered; at
    the end, prints how many answers of each status came back. Exits 1 if any answer was neither
    201 nor errSecNotAvailable (503), or timed out."""
    port, token, service, ackfile = int(args[0]), args[1], args[2], args[3]
    tls = len(args) > 4 and args[4] == "tls"
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    tally = {}
    n = 0
    with open(ackfile, "a") as acks:
        while not stopping.is_set():
            n += 1
            account = f"w-{os.getpid()}-{n}"
            body = {"class": "genericPassword", "service": service, "account": account, "accessible": "always",
                    "valueData": b64(account)}
            try:
                status, answer, _ = request(port, "POST", "/v1/items", body, token=token, timeout=10, tls=tls)
                if status == 503 and (answer or {}).get("status") != -25291:
                    status = "503 without errSecNotAvailable"
            except OSError as error:
                status, answer = type(error).__name__, None
            if status == 201:
                acks.write(account + "\n")
                acks.flush()
            # Refusals counted by their message too: what refused them.
            key = status if status == 201 else f"{status} {(answer or {}).get('message', '')}".strip()
            tally[key] = tally.get(key, 0) + 1
    unexpected = {k: v for k, v in tally.items() if not (k == 201 or str(k).startswith("503 "))}
    print(f"{'ok  ' if not unexpected else 'FAIL'} writer: answers {dict(sorted(tally.items(), key=str))}")
    return 1 if unexpected else 0


def stored_accounts(port, token, service):
    """The accounts of SERVICE's items, read on PORT page by page (at most 1,000 items each,
    following `next`); None when a page is refused."""
    stored, target = set(), f"/v1/items?service={service}&matchLimit=all"
    while True:
        status, body, _ = request(port, "GET", target, token=token, timeout=30)
        if status != 200:
            return None
        stored |= {item["attributes"]["account"] for item in body["items"]}
        if "next" not in body:
            return stored
        target = f"/v1/items?service={service}&matchLimit=all&pageAfter={body['next']}"


def verify(args):
    """PORT TOKEN SERVICE ACKFILE: every acknowledged account is stored."""
    port, token, service, ackfile = int(args[0]), args[1], args[2], args[3]
    with open(ackfile) as f:
        acknowledged = {line.strip() for line in f if line.strip()}
    stored = stored_accounts(port, token, service)
    lost = acknowledged - (stored or set())
    held = stored is not None and acknowledged and not lost
    print(f"{'ok  ' if held else 'FAIL'} {len(acknowledged)} acknowledged writes, {len(lost)} lost")
    return 0 if held else 1


def unavailable(args):
    """PORT TOKEN: with the database down, a search and an add each answer 503 errSecNotAvailable
    within 10 s (never a 500, never a hang), and health is 503 with storage unavailable."""
    port, token = int(args[0]), args[1]
    failures = 0
    calls = [("GET", "/v1/items?service=outage", None),
             ("POST", "/v1/items", {"class": "genericPassword", "service": "outage", "valueData": b64("x")}),
             ("GET", "/v1/health", None)]
    for method, path, body in calls:
        start = time.monotonic()
        try:
            status, answer, _ = request(port, method, path, body, token=token, timeout=10)
        except OSError as error:
            status, answer = type(error).__name__, None
        took = time.monotonic() - start
        expected = (answer or {}).get("storage") == "unavailable" if path == "/v1/health" else \
            (answer or {}).get("status") == -25291
        held = status == 503 and expected
        failures += 0 if held else 1
        print(f"{'ok  ' if held else 'FAIL'} database down: {method} {path} answered {status} in {took:.2f} s")
    return 1 if failures else 0


def recovered(args):
    """PORT TOKEN: an add succeeds again within 30 s of the database's return."""
    port, token = int(args[0]), args[1]
    body = {"class": "genericPassword", "service": "recovery", "account": str(port), "valueData": b64("x")}
    held, took = wait_until(lambda: request(port, "POST", "/v1/items", body, token=token, timeout=10)[0] == 201, 30)
    print(f"{'ok  ' if held else 'FAIL'} replica on {port} writes again {took:.2f} s after the database returned")
    return 0 if held else 1


def main():
    command, args = sys.argv[1], sys.argv[2:]
    commands = {"propagation": propagation, "race": race, "if-match": if_match, "writer": writer, "verify": verify,
                "unavailable": unavailable, "recovered": recovered}
    sys.exit(commands[command](args))


if __name__ == "__main__":
    main()
