#!/usr/bin/env python3
"""hvac, Vault's Python client, against keychaind's KV version 2 (Tests/vault/run.sh): prints one
`ok NAME` or `FAIL NAME` line per check. Usage: hvac_client.py URL CA_FILE ADMIN_TOKEN LIST_TOKEN"""

import sys

import hvac
from hvac import exceptions

url, ca, admin, lister = sys.argv[1:5]
kv = hvac.Client(url=url, token=admin, verify=ca).secrets.kv.v2
results = []


def check(name, condition):
    results.append(condition)
    print(("ok " if condition else "FAIL ") + name)


written = kv.create_or_update_secret(path="hvac/db", secret={"user": "app", "password": "hunter2"})
check("hvac create answers version 1", written["data"]["version"] == 1)
read = kv.read_secret_version(path="hvac/db", raise_on_deleted_version=True)
check("hvac read answers the data", read["data"]["data"] == {"user": "app", "password": "hunter2"})
patched = kv.patch(path="hvac/db", secret={"password": "rotated"})
check("hvac patch writes version 2", patched["data"]["version"] == 2)
check("hvac patch merges", kv.read_secret(path="hvac/db", raise_on_deleted_version=True)["data"]["data"] ==
      {"user": "app", "password": "rotated"})
kv.create_or_update_secret(path="hvac/sub/x", secret={"v": "1"})
check("hvac list names keys and folders", kv.list_secrets(path="hvac")["data"]["keys"] == ["db", "sub/"])
check("hvac metadata gives the current version", kv.read_secret_metadata(path="hvac/db")["data"]["current_version"] == 2)
try:
    kv.create_or_update_secret(path="hvac/db", secret={"x": "1"}, cas=1)
    check("hvac cas mismatch is refused", False)
except exceptions.InvalidRequest as error:
    check("hvac cas mismatch is refused", "check-and-set" in str(error))
check("hvac cas matching writes", kv.create_or_update_secret(path="hvac/db", secret={"x": "1"}, cas=2)["data"]["version"] == 3)
try:
    hvac.Client(url=url, token=lister, verify=ca).secrets.kv.v2.read_secret_version(path="hvac/db", raise_on_deleted_version=True)
    check("a token without read is refused as Vault refuses", False)
except exceptions.Forbidden:
    check("a token without read is refused as Vault refuses", True)
kv.delete_metadata_and_all_versions(path="hvac/db")
try:
    kv.read_secret_version(path="hvac/db", raise_on_deleted_version=True)
    check("hvac delete removes the path", False)
except exceptions.InvalidPath:
    check("hvac delete removes the path", True)
sys.exit(0 if all(results) else 1)
