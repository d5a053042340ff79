#!/usr/bin/env python3
"""Items for Tests/backup/run.sh: writers that record every acknowledged add, and a check that
each recorded item is in a keychain with its exact bytes.

  load.py writer PORT TOKEN SERVICE ACKS COUNT [THREADS]
      THREADS (default 4) connections add COUNT items in all to SERVICE, each with a random
      secret; after each 201 the line "account base64-secret" is appended to ACKS (flushed).
      Stops early on SIGTERM. Exits 1 on any answer but 201.
  load.py verify PORT TOKEN SERVICE ACKS
      Every complete line of ACKS is an item of SERVICE whose secret is those bytes.
"""

import base64
import http.client
import json
import os
import signal
import sys
import threading

stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())


def writer(port, token, service, acks, count, threads=4):
    lock = threading.Lock()
    counter = iter(range(count))
    failures = []
    out = open(acks, "a", buffering=1)

    def run():
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while not stop.is_set():
            with lock:
                n = next(counter, None)
            if n is None:
                return
            account = f"acct-{n:06d}"
            secret = base64.b64encode(os.urandom(24)).decode()
            body = json.dumps({"class": "genericPassword", "service": service, "account": account, "valueData": secret})
            connection.request("POST", "/v1/items", body, {"Authorization": f"Bearer {token}"})
            response = connection.getresponse()
            response.read()
            if response.status != 201:
                failures.append(response.status)
                return
            with lock:
                out.write(f"{account} {secret}\n")

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    out.close()
    if failures:
        print(f"writer: answers other than 201: {failures[:5]}", file=sys.stderr)
        sys.exit(1)


def verify(port, token, service, acks):
    with open(acks) as f:
        text = f.read()
    # A line being written when the file was copied is not complete: not acknowledged yet.
    lines = text.split("\n")[:-1]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    missing = []
    for line in lines:
        account, secret = line.split(" ")
        connection.request(
            "GET", f"/v1/items?service={service}&account={account}&returnData=true", headers={"Authorization": f"Bearer {token}"})
        response = connection.getresponse()
        body = response.read()
        found = json.loads(body).get("items", []) if response.status == 200 else []
        if [i.get("valueData") for i in found] != [secret]:
            missing.append((account, response.status))
    print(f"verify: {len(lines) - len(missing)} of {len(lines)} acknowledged items present with their bytes")
    if missing:
        print(f"verify: missing or different: {missing[:5]}", file=sys.stderr)
        sys.exit(1)
    if not lines:
        print("verify: no acknowledged item to look for", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "writer":
        writer(int(args[0]), args[1], args[2], args[3], int(args[4]), *(int(a) for a in args[5:]))
    elif command == "verify":
        verify(int(args[0]), args[1], args[2], args[3])
    else:
        sys.exit(f"unknown command {command}")
