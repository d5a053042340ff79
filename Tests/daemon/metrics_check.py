"""Checks two scrapes of keychaind's GET /metrics (Tests/daemon/metrics.sh), each parsed by
prometheus_client's text parser: the named families exist with their types and label names,
every label value comes from its fixed set, the counters moved by what the script did between
the scrapes, and no canary (a group name, an attribute value, a secret, a token) appears.

Usage: metrics_check.py BEFORE AFTER CANARY...   Prints one line per failed check; exits 1 if any.
"""

import sys

from prometheus_client.parser import text_string_to_metric_families

# family (as the parser names it: counters without _total) -> (type, label names of its samples)
FAMILIES = {
    "keychaind_http_requests": ("counter", {"route", "method", "status_class"}),
    "keychaind_http_request_duration_seconds": ("histogram", {"route", "method", "status_class"}),
    "keychaind_http_open_connections": ("gauge", set()),
    "keychaind_keychain_state": ("gauge", {"state"}),
    "keychaind_keychain_items": ("gauge", {"class"}),
    "keychaind_unlock_failures": ("counter", set()),
    "keychaind_unlock_throttled": ("counter", {"scope"}),
    "keychaind_unlock_budget_failures": ("gauge", set()),
    "keychaind_unlock_retry_after_seconds": ("gauge", set()),
    "keychaind_store_commit_batch_size": ("histogram", {"path"}),
    "keychaind_store_commit_duration_seconds": ("histogram", {"path"}),
    "keychaind_store_sync_duration_seconds": ("histogram", set()),
    "keychaind_database_errors": ("counter", set()),
    "keychaind_events_subscribers": ("gauge", set()),
    "keychaind_events_published": ("counter", set()),
}
ROUTES = {
    "/v1/items", "/v1/items/search", "/v1/items/{persistentRef}", "/v1/keychain", "/v1/keychain/lock",
    "/v1/keychain/unlock", "/v1/keychain/passphrase", "/v1/keychain/settings", "/v1/keychain/export",
    "/v1/keychain/import", "/v1/keychain/backup", "/v1/tokens", "/v1/tokens/self",
    "/v1/tokens/{id}", "/v1/health", "/metrics", "/v1/events", "/v1/{mount}/data/{path}", "/v1/{mount}/metadata/{path}",
    "/v1/sys/mounts", "/v1/sys/internal/ui/mounts/{path}", "/v1/auth/token/lookup-self", "/v1/items/import", "unmatched",
}
VALUES = {
    "route": ROUTES,
    "method": {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "LIST", "other"},
    "status_class": {"1xx", "2xx", "3xx", "4xx", "5xx"},
    "state": {"uninitialized", "locked", "unlocked"},
    # Item classes: a fixed set of names (one series per class this build stores).
    "class": {"genericPassword", "internetPassword", "certificate", "key", "identity"},
    "scope": {"address", "keychain"},
    "path": {"write", "add"},
}

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def parse(path):
    text = open(path, encoding="utf-8").read()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    return text, families


def value(families, family, sample_name, **labels):
    """The value of the sample with exactly these labels (0 when the series does not exist yet)."""
    for sample in families[family].samples if family in families else []:
        if sample.name == sample_name and sample.labels == labels:
            return sample.value
    return 0


def check_scrape(name, text, families, canaries):
    for family, (kind, label_names) in FAMILIES.items():
        check(family in families, f"{name}: no family {family}")
        if family not in families:
            continue
        check(families[family].type == kind, f"{name}: {family} is a {families[family].type}, not a {kind}")
        check(len(families[family].samples) > 0, f"{name}: {family} has no sample")
        for sample in families[family].samples:
            names = set(sample.labels) - {"le"}
            check(names == label_names, f"{name}: {sample.name} has labels {sorted(names)}, not {sorted(label_names)}")
            for label, label_value in sample.labels.items():
                if label != "le":
                    check(label_value in VALUES[label], f"{name}: {sample.name} {label}={label_value!r} is not a fixed value")
    for canary in canaries:
        check(canary not in text, f"{name}: {canary!r} appears in the metrics")
    check(value(families, "keychaind_keychain_state", "keychaind_keychain_state", state="unlocked") == 1, f"{name}: not unlocked")
    check(value(families, "keychaind_keychain_items", "keychaind_keychain_items", **{"class": "genericPassword"}) == 3,
          f"{name}: keychaind_keychain_items{{class=genericPassword}} is not 3")
    check(value(families, "keychaind_http_open_connections", "keychaind_http_open_connections") >= 0, f"{name}: open connections")


def main():
    before_text, before = parse(sys.argv[1])
    after_text, after = parse(sys.argv[2])
    canaries = sys.argv[3:]
    check_scrape("API port scrape", before_text, before, canaries)
    check_scrape("metrics listener scrape", after_text, after, canaries)

    def moved(family, sample, **labels):
        return value(after, family, sample, **labels) - value(before, family, sample, **labels)

    requests = ("keychaind_http_requests", "keychaind_http_requests_total")
    durations = ("keychaind_http_request_duration_seconds", "keychaind_http_request_duration_seconds_count")
    item_get = {"route": "/v1/items/{persistentRef}", "method": "GET", "status_class": "2xx"}
    check(value(before, *requests, route="/v1/items", method="POST", status_class="2xx") == 3, "3 adds before the first scrape")
    check(moved(*requests, **item_get) == 2, "2 reads of one item by its ref between the scrapes")
    check(moved(*durations, **item_get) == 2, "and their latencies")
    check(moved(*requests, route="unmatched", method="GET", status_class="4xx") == 1, "1 unmatched path")
    check(moved(*requests, route="/metrics", method="GET", status_class="2xx") == 1, "the API port's scrape")
    check(moved(*requests, route="/metrics", method="GET", status_class="4xx") == 2, "2 refused scrapes (401, 403)")
    check(moved("keychaind_unlock_failures", "keychaind_unlock_failures_total") == 1, "1 wrong passphrase")
    check(value(after, "keychaind_unlock_budget_failures", "keychaind_unlock_budget_failures") == 1, "the budget counts it")
    check(moved("keychaind_store_commit_batch_size", "keychaind_store_commit_batch_size_count", path="write") >= 1,
          "the unlock attempt's count was committed")
    check(value(after, "keychaind_store_commit_batch_size", "keychaind_store_commit_batch_size_count", path="write") >= 3,
          "the 3 adds were committed")
    check(value(after, "keychaind_store_sync_duration_seconds", "keychaind_store_sync_duration_seconds_count")
          == value(after, "keychaind_store_commit_duration_seconds", "keychaind_store_commit_duration_seconds_count", path="write"),
          "each commit's sync timed")
    check(value(after, "keychaind_database_errors", "keychaind_database_errors_total") == 0, "no database error")

    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
