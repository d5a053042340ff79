#!/usr/bin/env python3
"""Builds the results table from one run's figures and checks the targets.

Usage: report.py RUNS_JSONL FACTS OUTPUT_MD [--results DIRECTORY]
       report.py --markdown RESULTS_JSON

RUNS_JSONL has one line per measured run (wrk_result.py writes them; raw SQLite runs come from
run.sh). FACTS has key=value lines that run.sh wrote (memory, start-up, unlock, versions, the
machine). Prints the table and writes it to OUTPUT_MD. With --results, it also writes the run's
figures (every run and fact) to DIRECTORY/<UTC date>-<short commit>.json, which is never edited
by hand; --markdown prints the table again from such a file. A file marked "imported" holds a
table's figures taken from an older run's text instead of its runs, and prints them as they are.

Two views of every load, both from the same runs:
- throughput: a ratio compares runs of the same round, measured side by side, and is the median
  of the per-round ratios. The targets are stated this way.
- server CPU time per request: the server's user+system time over the run divided by the requests
  it answered. Work that other tenants of the machine steal from a server lowers its throughput
  but hardly its CPU time per request, so this view stays steady when the machine is noisy.
  "B's cost" is this figure.
"""

import json
import os
import statistics
import sys
from collections import defaultdict

MIB = 1024  # VmRSS is in KiB
DISTURBED_BELOW = 0.90  # a server-bound run whose server got less of its core than this


def load(runs_path: str, facts_path: str):
    runs = defaultdict(dict)  # label -> round -> record
    with open(runs_path) as file:
        for line in file:
            if line.strip():
                record = json.loads(line)
                runs[record["label"]][record["round"]] = record
    facts = {}
    with open(facts_path) as file:
        for line in file:
            if "=" in line:
                key, value = line.rstrip("\n").split("=", 1)
                facts[key] = value
    return runs, facts


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def cpu_per_request_us(record):
    if record.get("server_cpu") is None or not record.get("seconds") or not record.get("requests"):
        return None
    return record["server_cpu"] * record["seconds"] / record["requests"] * 1e6


class Series:
    """The runs of one label: medians, and whether every run was clean."""

    def __init__(self, runs, label):
        self.label = label
        self.by_round = runs.get(label, {})
        records = list(self.by_round.values())
        self.count = len(records)
        self.rate = median(r["rate"] for r in records)
        self.p50 = median(r.get("p50_us") for r in records)
        self.p99 = median(r.get("p99_us") for r in records)
        self.cpu = median(r.get("server_cpu") for r in records)
        self.cost_us = median(cpu_per_request_us(r) for r in records)
        self.bad = [r for r in records if not r.get("ok", True)]

    @property
    def measured(self):
        return self.count > 0

    def disturbed_rounds(self):
        return sorted(n for n, r in self.by_round.items()
                      if r.get("server_cpu") is not None and r["server_cpu"] < DISTURBED_BELOW)

    def failure(self):
        """'FAIL (…)' when a run had non-2xx responses or socket errors, else None."""
        if not self.bad:
            return None
        non2xx = sum(r.get("non2xx", 0) for r in self.bad)
        sockets = sum(r.get("socket_errors", 0) for r in self.bad)
        empty = sum(1 for r in self.bad if not r.get("rate"))
        parts = [f"{non2xx:,} non-2xx"] if non2xx else []
        parts += [f"{sockets:,} socket errors"] if sockets else []
        parts += [f"{empty} runs without figures"] if empty else []
        return f"FAIL ({', '.join(parts)} in {len(self.bad)} of {self.count} runs)"


def paired(numerator: Series, denominator: Series):
    """(throughput ratio, CPU-cost ratio, pairs): medians over the rounds that have both.

    Both say how many times faster the numerator is: rate_n / rate_d, and cost_d / cost_n.
    """
    rounds = sorted(set(numerator.by_round) & set(denominator.by_round))
    rates, costs = [], []
    for n in rounds:
        top, bottom = numerator.by_round[n], denominator.by_round[n]
        if bottom["rate"]:
            rates.append(top["rate"] / bottom["rate"])
        top_cost, bottom_cost = cpu_per_request_us(top), cpu_per_request_us(bottom)
        if top_cost and bottom_cost:
            costs.append(bottom_cost / top_cost)
    return median(rates), median(costs), len(rates)


# --- formatting ---------------------------------------------------------------------------------

def per_second(value, unit="req/s"):
    return "—" if value is None else f"{value:,.0f} {unit}"


def ms(microseconds):
    return "—" if microseconds is None else f"{microseconds / 1000:.2f} ms"


def seconds_or_ms(microseconds):
    """ms, or seconds from one second up (an identity search's latency)."""
    if microseconds is not None and microseconds >= 1e6:
        return f"{microseconds / 1e6:.2f} s"
    return ms(microseconds)


def times(value):
    return "—" if value is None else f"{value:.2f}×"


def cpu_text(series):
    if series.cpu is None:
        return "—"
    cost = "" if series.cost_us is None else f", {series.cost_us:.1f} µs/req"
    return f"{series.cpu:.0%}{cost}"


def cpu_ms_text(series, what):
    """cpu_text for runs of a second or so per request: the CPU time per `what` in ms."""
    if series.cpu is None:
        return "—"
    cost = "" if series.cost_us is None else f", {series.cost_us / 1000:,.1f} ms/{what}"
    return f"{series.cpu:.0%}{cost}"


def measured_against(throughput, cost, pairs, what, per="request"):
    return f"measured {times(throughput)} {what} ({pairs} pairs; by CPU per {per} {times(cost)})"


def verdict(passed, *series):
    for s in series:
        if s is not None and s.failure():
            return s.failure()
    if passed is None:
        return "not measured"
    return "PASS" if passed else "**MISS**"


def fact_float(facts, key):
    try:
        return float(facts[key])
    except (KeyError, ValueError):
        return None


# What M counts: SQLite reads keychain.db through a memory map, whose resident pages are the
# kernel's page cache (reads by pread fill it as well, outside VmRSS then): they are left out.
OWN_MEMORY = "less the pages of keychain.db that SQLite maps (page cache: docs/deployment.md#memory)"


def mapped_text(facts, vmrss_key, mapped_key):
    """`; VmRSS X MiB, of which Y MiB keychain.db's mapped pages`, when both were measured."""
    vmrss, mapped = fact_float(facts, vmrss_key), fact_float(facts, mapped_key)
    if vmrss is None or mapped is None:
        return ""
    return f"; VmRSS {vmrss / MIB:.1f} MiB, of which {mapped / MIB:.1f} MiB keychain.db's mapped pages"


def fact_list(facts, key):
    return [float(v) for v in facts.get(key, "").split() if v]


class Table:
    HEADER = ("", "Measurement", "Figure", "p50", "p99", "Server CPU", "Target", "Result")

    def __init__(self):
        self.rows = []

    def add(self, key, what, figure, p50="", p99="", cpu="", target="", result=""):
        self.rows.append((key, what, figure, p50, p99, cpu, target, result))

    def markdown(self):
        lines = ["| " + " | ".join(self.HEADER) + " |", "|" + "|".join("---" for _ in self.HEADER) + "|"]
        lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in self.rows]
        return "\n".join(lines)


# --- the table ----------------------------------------------------------------------------------

def build(runs, facts):
    items = int(facts.get("items", "100000"))
    big = int(facts.get("items_big", "1000000"))
    a, b, d, h = Series(runs, "A"), Series(runs, "B"), Series(runs, "D"), Series(runs, "H")
    a2, b_default = Series(runs, "A2"), Series(runs, "Bdef")
    b_plain, b_audit = Series(runs, "B2"), Series(runs, "Baud")
    h_plain, h_audit = Series(runs, "H2"), Series(runs, "Haud")
    c, raw, c_audit = Series(runs, "C"), Series(runs, "S"), Series(runs, "Caud")
    b_big, b_small = Series(runs, "B1M"), Series(runs, "Bsm")
    pinned = "`--threads 1`, pinned to core 0"
    table = Table()

    table.add("A", "minimal libmicrohttpd server, 1 epoll polling thread, 60-byte JSON body",
              per_second(a.rate), ms(a.p50), ms(a.p99), cpu_text(a), "(the ceiling)", a.failure() or "ok")

    throughput, cost, pairs = paired(h, a)
    table.add("H", f"hand-written C server doing B's work (same_work.c): bearer token hashed with BLAKE2b and "
              f"compared in constant time, SQLite point lookup of one of {items:,}, XChaCha20-Poly1305 open, "
              "JSON with the secret in base64; 1 epoll polling thread, no log line",
              per_second(h.rate), ms(h.p50), ms(h.p99), cpu_text(h),
              "(the anchor) " + measured_against(throughput, cost, pairs, "A"), h.failure() or "ok")

    throughput, cost, pairs = paired(b, h)
    over_a, _, _ = paired(b, a)
    table.add("B", f"keychaind GET of a random item of {items:,}, returnData, as shipped (default log level, "
              f"a line per request), {pinned}", per_second(b.rate), ms(b.p50), ms(b.p99), cpu_text(b),
              f"≥ 0.8 × H; {measured_against(throughput, cost, pairs, 'H')}; {times(over_a)} A",
              verdict(None if throughput is None else throughput >= 0.8, h, b))

    # Every connection always has a request in flight and one core serves them in turn, so a
    # request waits connections ÷ rate on average (Little's law): the p99 follows the rate.
    connections = int(facts.get("connections", "16"))
    def mean_wait(series):
        return None if not series.rate else connections / series.rate * 1e6
    table.add("B p99", f"B's 99th-percentile latency, {connections} connections", ms(b.p99), "", "", "",
              f"≤ 1 ms; H's p99 {ms(h.p99)}. With {connections} requests always in flight on one core, "
              f"a request waits {connections} ÷ rate on average: B {ms(mean_wait(b))}, H {ms(mean_wait(h))}",
              verdict(None if b.p99 is None else b.p99 <= 1000, b))

    throughput, cost, pairs = paired(b, d)
    h_over_d, _, _ = paired(h, d)
    table.add("D", f"etcd {facts.get('etcd_version', '?')}, auth on, range of 1 key through the HTTP/JSON "
              "gateway, pinned to core 0 (GOMAXPROCS 1)",
              per_second(d.rate), ms(d.p50), ms(d.p99), cpu_text(d),
              f"B ≥ 10 × D; B {measured_against(throughput, cost, pairs, 'D')}; H {times(h_over_d)} D",
              verdict(None if throughput is None else throughput >= 10, b, d))

    g_wrk, g_client, g_session = Series(runs, "Gw"), Series(runs, "Gc"), Series(runs, "Gu")
    if g_wrk.measured or g_client.measured:
        def generator_cpu(series):
            return median(r.get("client_cpu_us") for r in series.by_round.values())

        wrk_cpu, client_cpu = generator_cpu(g_wrk), generator_cpu(g_client)
        tasks = facts.get("client_tasks", "16")
        table.add("Gw", f"wrk: GET of one item by its persistent reference, returnData, {tasks} connections, {pinned}",
                  per_second(g_wrk.rate), ms(g_wrk.p50), ms(g_wrk.p99), cpu_text(g_wrk),
                  "(the anchor) wrk's own CPU " + ("—" if wrk_cpu is None else f"{wrk_cpu:.1f} µs/req"),
                  g_wrk.failure() or "info")
        throughput, _, pairs = paired(g_client, g_wrk)
        ratio = "" if not wrk_cpu or client_cpu is None else f", {client_cpu / wrk_cpu:.1f}× wrk's"
        table.add("Gc", f"the same GET through KeychainClient (AsyncHTTPClient), {tasks} concurrent tasks on one client "
                  "on core 1, alternated with Gw", per_second(g_client.rate), ms(g_client.p50), ms(g_client.p99),
                  cpu_text(g_client),
                  f"{times(throughput)} Gw ({pairs} pairs); the client's own CPU "
                  + ("—" if client_cpu is None else f"{client_cpu:.1f} µs/req") + ratio,
                  g_client.failure() or "info")
        throughput, _, pairs = paired(g_session, g_wrk)
        session_cpu = generator_cpu(g_session)
        over_session, _, _ = paired(g_client, g_session)
        table.add("Gu", "the same GET through URLSession (FoundationNetworking over libcurl), the transport KeychainClient "
                  "did not take, 16 concurrent tasks", per_second(g_session.rate), ms(g_session.p50), ms(g_session.p99),
                  cpu_text(g_session),
                  f"{times(throughput)} Gw ({pairs} pairs); its own CPU "
                  + ("—" if session_cpu is None else f"{session_cpu:.1f} µs/req") + f"; Gc {times(over_session)} Gu",
                  g_session.failure() or "info")

    kv, ov = Series(runs, "Kv"), Series(runs, "Ov")
    if kv.measured or ov.measured:
        kv_items = int(facts.get("kv_items", "10000"))
        table.add("Ov", f"OpenBao {facts.get('openbao_version', '?')}: KV version 2 GET of a random secret of {kv_items:,} "
                  "(X-Vault-Token), integrated raft storage, a file audit device, a token whose policy only reads, "
                  "pinned to core 0 (GOMAXPROCS 1)",
                  per_second(ov.rate), ms(ov.p50), ms(ov.p99), cpu_text(ov), "(the anchor)", ov.failure() or "ok")
        throughput, cost, pairs = paired(kv, ov)
        table.add("Kv", f"keychaind: the same GET on its KV version 2 routes, a read token, the audit log on, {pinned}; "
                  "alternated with Ov", per_second(kv.rate), ms(kv.p50), ms(kv.p99), cpu_text(kv),
                  f"≥ 15 × Ov; {measured_against(throughput, cost, pairs, 'Ov')}",
                  verdict(None if throughput is None else throughput >= 15, ov, kv))

    for label, algorithm, fact, target in (
            ("Ksp256", "P-256 ECDSA (ecdsaSignatureMessageX962SHA256)", "openssl_ecdsap256_sign_per_s", None),
            ("Ksed", "Ed25519 (edDSASignatureMessageCurve25519SHA512)", "openssl_ed25519_sign_per_s", 0.5)):
        signing = Series(runs, label)
        if not signing.measured:
            continue
        ceiling = fact_float(facts, fact)
        ratio = signing.rate / ceiling if signing.rate and ceiling else None
        against = (f"openssl {facts.get('openssl_version', '?')} speed on core 0: "
                   f"{per_second(ceiling, 'signatures/s')}; measured {times(ratio)}")
        table.add(label, f"keychaind signatures over HTTP: POST /v1/keys/sign with a kept, non-extractable {algorithm} key, "
                  f"a `use` token, a 32-byte message, 16 connections, {pinned}",
                  per_second(signing.rate, "signatures/s"), ms(signing.p50), ms(signing.p99), cpu_text(signing),
                  (f"≥ {target} × openssl speed; " if target else "(beside openssl speed) ") + against,
                  verdict(None if ratio is None or target is None else ratio >= target, signing)
                  if target else signing.failure() or "info")

    to_event, to_answer = Series(runs, "El"), Series(runs, "Ea")
    if to_event.measured:
        cycles = facts.get("event_cycles", "?")
        table.add("Ea", f"lock's answer: POST /v1/keychain/lock sent to its answer received, one subscriber connected "
                  f"(the answer waits for the event's delivery); {cycles} lock and unlock cycles a round, {pinned}",
                  "", ms(to_answer.p50), ms(to_answer.p99), "", "(the anchor)", to_answer.failure() or "info")
        table.add("El", "lock to event: the same lock sent to its `lock` event received by the subscriber",
                  "", ms(to_event.p50), ms(to_event.p99), "",
                  f"before Ea; medians of {to_event.count} rounds' p50 and p99", to_event.failure() or "info")
    idle_kb, held_kb = fact_float(facts, "events_rss_kb_idle"), fact_float(facts, "events_rss_kb_1000")
    if idle_kb is not None and held_kb is not None:
        table.add("Mev", "keychaind's resident memory with 1,000 idle subscribers (GET /v1/events), beside none",
                  f"{held_kb / 1024:,.1f} MiB", "", "", "",
                  f"{idle_kb / 1024:,.1f} MiB with none: {(held_kb - idle_kb) * 1024 / 1000:,.0f} bytes a subscriber",
                  "info")
    b_none, b_held = Series(runs, "B0"), Series(runs, "B100")
    if b_none.measured or b_held.measured:
        throughput, cost, pairs = paired(b_held, b_none)
        table.add("B0", f"B again (GET of a random item of {items:,}), no subscriber, {pinned}", per_second(b_none.rate),
                  ms(b_none.p50), ms(b_none.p99), cpu_text(b_none), "(the anchor)", b_none.failure() or "ok")
        table.add("B100", "B with 100 idle subscribers of the event stream connected, alternated with B0",
                  per_second(b_held.rate), ms(b_held.p50), ms(b_held.p99), cpu_text(b_held),
                  f"≥ 0.95 × B0; {measured_against(throughput, cost, pairs, 'B0')}",
                  verdict(None if throughput is None else throughput >= 0.95, b_none, b_held))

    b_all = Series(runs, "Ball")
    if b_all.measured:
        throughput, cost, pairs = paired(b_all, h)
        table.add("B*", "B with the admin token (every group, `*`): the query names no group, so the store "
                  "lists the groups of the class and reads each one's item by its primary key", per_second(b_all.rate),
                  ms(b_all.p50),
                  ms(b_all.p99), cpu_text(b_all), "≥ 0.7 × H; " + measured_against(throughput, cost, pairs, "H"),
                  verdict(None if throughput is None else throughput >= 0.7, h, b_all))

    counts = {label: runs.get(label, {}).get(1) for label in ("Bi", "Balli", "Hi")}
    if all(counts.values()):
        # Instructions per GET under callgrind (instructions.py): what does not move with the machine.
        def kilo(label, part="instructions"):
            return counts[label][part] / 1000

        def besides_memset(label):
            return kilo(label) - kilo(label, "memset")

        def per_get(label):
            # Runs before these counts were kept have no such fields.
            if "allocations" not in counts[label]:
                return ""
            text = f"; {counts[label]['allocations']:.0f} allocations a GET"
            if counts[label].get("reference_counting"):
                text += f", {counts[label]['reference_counting']:.0f} retains and releases"
            return text

        for label, row, what in (("Bi", "B", "B"), ("Balli", "B*", "B* (the admin token)")):
            table.add(f"{row} instr.", f"{what} under callgrind: instructions per GET, every thread, "
                      f"{counts[label]['gets']:,} GETs on one connection after a warm-up",
                      f"{kilo(label):.1f}k", "", "", "",
                      f"H / {row} = {kilo('Hi') / kilo(label):.2f}; without libmicrohttpd's pool memset "
                      f"({kilo(label, 'memset'):.1f}k here, {kilo('Hi', 'memset'):.1f}k in H), "
                      f"{besides_memset('Hi') / besides_memset(label):.2f}{per_get(label)}", "info")
        table.add("H instr.", "H under callgrind, the same GETs", f"{kilo('Hi'):.1f}k", "", "", "",
                  f"(the anchor){per_get('Hi')}", "info")
        audit_counts = {label: runs.get(label, {}).get(1) for label in ("Baudi", "Haudi")}
        if all(audit_counts.values()):
            counts.update(audit_counts)
            line_b, line_h = kilo("Baudi") - kilo("Bi"), kilo("Haudi") - kilo("Hi")
            table.add("Baud instr.", "B with the audit log under callgrind, the same GETs", f"{kilo('Baudi'):.1f}k", "", "",
                      "", f"the audit line {line_b:.1f}k a GET (Baud − B), by hand {line_h:.1f}k (Haud − H){per_get('Baudi')}",
                      "info")
            table.add("Haud instr.", "Haud under callgrind, the same GETs", f"{kilo('Haudi'):.1f}k", "", "", "",
                      f"(the audit's floor){per_get('Haudi')}", "info")

    if b_audit.measured:
        # Alternated with B2 (B again, on the same data, without the audit log) round by round.
        throughput, cost, pairs = paired(b_audit, b_plain)
        over_d = b_audit.rate / d.rate if b_audit.rate and d.rate else None
        table.add("B2", f"B again, alternated with Baud (a copy of the same keychain, no audit log), {pinned}",
                  per_second(b_plain.rate), ms(b_plain.p50), ms(b_plain.p99), cpu_text(b_plain),
                  "(Baud's pair)", b_plain.failure() or "info")
        h_audit_over_d = h_audit.rate / d.rate if h_audit.rate and d.rate else None
        floor = ""
        if h_audit.measured:
            against_floor, _, floor_pairs = paired(b_audit, h_audit)
            floor = f"; {times(against_floor)} Haud ({floor_pairs} pairs); Haud itself {times(h_audit_over_d)} D"
        table.add("Baud", f"B with the audit log (`--audit-log FILE`, as shipped: each answer carrying a secret waits "
                  f"for its line's write(2), one write for the answers of a pass, no fsync), {pinned}, alternated with B2; "
                  f"{facts.get('audit_lines', '?')} lines written",
                  per_second(b_audit.rate), ms(b_audit.p50), ms(b_audit.p99), cpu_text(b_audit),
                  f"≥ 0.8 × B and ≥ 10 × D; {measured_against(throughput, cost, pairs, 'B2')}, {times(over_d)} D{floor}",
                  verdict(None if throughput is None or over_d is None else throughput >= 0.8 and over_d >= 10,
                          b_audit, b_plain))
        if h_audit.measured:
            throughput, cost, pairs = paired(h_audit, h_plain)
            table.add("H2", "H again, alternated with Haud, B2 and Baud (same_work.c, no audit log), pinned to core 0",
                      per_second(h_plain.rate), ms(h_plain.p50), ms(h_plain.p99), cpu_text(h_plain),
                      "(Haud's pair)", h_plain.failure() or "info")
            table.add("Haud", "H writing Baud's audit line by hand (same_work.c with an audit log): the same fields, the "
                      "query values' and the chain's keyed BLAKE2b, each answer carrying a secret held to the polling "
                      f"thread's next pass and one write(2) for the lines of a pass; "
                      f"{facts.get('same_work_audit_lines', '?')} lines written",
                      per_second(h_audit.rate), ms(h_audit.p50), ms(h_audit.p99), cpu_text(h_audit),
                      f"(the audit's floor) {measured_against(throughput, cost, pairs, 'H2')}, "
                      f"{times(h_audit_over_d)} D", h_audit.failure() or "info")

    if b_default.measured:
        throughput, cost, pairs = paired(b_default, a2)
        table.add("B′", f"B with keychaind's default thread count ({facts.get('default_threads', '?')}), "
                  "pinned to core 0", per_second(b_default.rate), ms(b_default.p50), ms(b_default.p99),
                  cpu_text(b_default), "(for comparison) " + measured_against(throughput, cost, pairs, "A"),
                  b_default.failure() or "info")

    table.add("S", "raw SQLite: single-row INSERT, own transaction, WAL, synchronous=FULL, same directory",
              per_second(raw.rate, "inserts/s"), "", "", cpu_text(raw), "(the durable-commit ceiling)", "info")
    table.add("C", f"keychaind adds (POST /v1/items, durable), {pinned}",
              per_second(c.rate, "adds/s"), ms(c.p50), ms(c.p99), cpu_text(c), "≥ 2,000 adds/s",
              verdict(None if c.rate is None else c.rate >= 2000, c))
    throughput, cost, pairs = paired(c, raw)
    table.add("C/S", "C beside raw SQLite, same disk, alternated", times(throughput), "", "", "",
              f"≥ 0.7 × S ({pairs} pairs)", verdict(None if throughput is None else throughput >= 0.7, c))
    if c_audit.measured:
        throughput, cost, pairs = paired(c_audit, c)
        table.add("Caud", f"C with the audit log (`--audit-log FILE`: each add's line appended, written in batches), "
                  f"{pinned}, alternated with C", per_second(c_audit.rate, "adds/s"), ms(c_audit.p50), ms(c_audit.p99),
                  cpu_text(c_audit), "(beside C) " + measured_against(throughput, cost, pairs, "C"),
                  c_audit.failure() or "info")

    # Certificate adds beside C, and an identity search beside the same search by hand.
    c_cert, scan, search = Series(runs, "Ccert"), Series(runs, "Ic"), Series(runs, "Id")
    if c_cert.measured:
        throughput, cost, pairs = paired(c_cert, c)
        table.add("Ccert", f"keychaind certificate adds (POST /v1/items, class certificate, a {facts.get('cert_bytes', '?')}-byte "
                  f"P-256 leaf made unique in its serial: parsed, attributes derived, durable), {pinned}, alternated with C "
                  "on its keychain", per_second(c_cert.rate, "adds/s"), ms(c_cert.p50), ms(c_cert.p99), cpu_text(c_cert),
                  "(beside C) " + measured_against(throughput, cost, pairs, "C", per="add"),
                  c_cert.failure() or "info")
    if scan.measured or search.measured:
        count = int(facts.get("cert_items", "0"))
        parsed = median(r.get("parsed", 0) / r["requests"] for r in scan.by_round.values() if r.get("requests"))
        table.add("Ic", f"hand-written identity search in C (cert_scan.c): {count:,} certificates' DER sealed in a SQLite table; "
                  "for each search, one row after another opened, walked to its subject and memmem in each entry's value "
                  f"until the one that matches ({'?' if parsed is None else f'{parsed:,.0f}'} parsed per search); no "
                  "HTTP, JSON or Swift, one thread on core 0",
                  "—" if scan.rate is None else f"{scan.rate:.2f} searches/s", "", "", cpu_ms_text(scan, "search"),
                  "(the anchor for Id)", scan.failure() or "ok")
        throughput, cost, pairs = paired(search, scan)
        table.add("Id", f"keychaind identity search: GET class=identity, matchSubjectContains=host-NNNNN.example, "
                  f"returnData, among {count:,} certificates, each an identity through one private key; the reader "
                  f"token, 1 connection, {pinned}, alternated with Ic",
                  "—" if search.rate is None else f"{search.rate:.2f} searches/s", seconds_or_ms(search.p50),
                  seconds_or_ms(search.p99),
                  cpu_ms_text(search, "search"), "(no target; beside Ic) "
                  + measured_against(throughput, cost, pairs, "Ic", per="search"),
                  search.failure() or "info")
    elif facts.get("certs") == "skipped":
        for key, what in (("Ccert", "keychaind certificate adds"), ("Id", "keychaind identity search by subject text")):
            table.add(key, what, "—", "", "", "", "", "not measured (BENCH_CERTS=0)")

    rss, peak = fact_float(facts, "rss_kb"), fact_float(facts, "hwm_kb")
    table.add("M", f"keychaind resident memory at {items:,} items (after preloading and the B runs): "
              f"VmRSS {OWN_MEMORY}",
              "—" if rss is None else f"{rss / MIB:.1f} MiB", "", "", "",
              "≤ 64 MiB" + mapped_text(facts, "vmrss_kb", "db_mapped_kb")
              + ("" if peak is None else f" (peak VmHWM {peak / MIB:.0f} MiB: Argon2id at unlock)"),
              verdict(None if rss is None else rss <= 64 * MIB))
    fresh = fact_float(facts, "rss_fresh_kb")
    if fresh is not None:
        table.add("M0", f"M right after start-up and unlock at {items:,} items", f"{fresh / MIB:.1f} MiB",
                  "", "", "", "", "info")
    before_export, after_export = fact_float(facts, "rss_before_export_kb"), fact_float(facts, "rss_after_export_kb")
    if before_export is not None and after_export is not None:
        bundle_mb = int(facts.get("served_bundle_bytes", "0")) / 1e6
        table.add("Mx", f"M after `POST /v1/keychain/export` of {items:,} items, read to its end "
                  f"({bundle_mb:.1f} MB)", f"{after_export / MIB:.1f} MiB", "", "", "",
                  f"{before_export / MIB:.1f} MiB before it", "info")

    if b_big.measured:
        # B's cost is its CPU time per request, against B at `items` (Bsm, a copy of the keychain
        # before it grew) in the same rounds: the median of the per-round ratios.
        throughput, cost_ratio, pairs = paired(b_small, b_big)
        table.add("Bsm", f"B at {items:,} items again, on a copy of the keychain made before it grew, alternated "
                  f"with B1M, {pinned}", per_second(b_small.rate), ms(b_small.p50), ms(b_small.p99),
                  cpu_text(b_small), "(B1M's pair)", b_small.failure() or "info")
        table.add("B1M", f"B at {big:,} items", per_second(b_big.rate), ms(b_big.p50), ms(b_big.p99),
                  cpu_text(b_big),
                  f"cost ≤ 1.2 × cost at {items:,}; measured {times(cost_ratio)} Bsm's CPU per request "
                  f"(throughput: Bsm {times(throughput)} B1M; {pairs} pairs)",
                  verdict(None if cost_ratio is None else cost_ratio <= 1.2, b_big, b_small))
        rss_big = fact_float(facts, "rss_big_kb")
        table.add("M1M", f"M at {big:,} items (after the B1M runs)",
                  "—" if rss_big is None else f"{rss_big / MIB:.1f} MiB", "", "", "",
                  "≤ 64 MiB" + mapped_text(facts, "vmrss_big_kb", "db_mapped_big_kb"),
                  verdict(None if rss_big is None else rss_big <= 64 * MIB))
    else:
        million = facts.get("million", "skipped")
        why = "not measured (BENCH_MILLION=0)" if million == "skipped" else f"not measured ({million})"
        table.add("B1M", f"B at {big:,} items", "—", "", "", "", f"cost ≤ 1.2 × cost at {items:,}", why)
        table.add("M1M", f"M at {big:,} items", "—", "", "", "", "≤ 64 MiB", why)

    one, sixteen = fact_list(facts, "lifecycle_one_s"), fact_list(facts, "lifecycle_sixteen_s")
    if one and sixteen:
        # Medians of the alternated rounds; the target is Apple's kc-20 stress shape.
        ratio = median(sixteen) / median(one)
        table.add("L", f"{facts.get('lifecycles', '?')} item life cycles (add, search, read, update, read, delete, "
                  "search) on 16 connections beside 1, durable, `--threads 1`",
                  f"{median(sixteen):.2f} s vs {median(one):.2f} s", "", "", "",
                  f"16 connections ≤ 0.5 × 1; measured {ratio:.2f}× (median of {len(one)})", verdict(ratio <= 0.5))

    b_pg, b_pg2, c_pg, c_pg2 = Series(runs, "Bpg"), Series(runs, "Bpg2"), Series(runs, "Cpg"), Series(runs, "Cpg2")
    ps, pi, pa = Series(runs, "PS"), Series(runs, "PI"), Series(runs, "PA")
    if b_pg.measured:
        pg_items = int(facts.get("pg_items", "0"))
        version = facts.get("postgres_version", "?")
        threads = facts.get("pg_threads", "?")
        table.add("PS", f"pgbench select-only (-S, prepared, 16 connections) on the same PostgreSQL {version}",
                  per_second(ps.rate, "tx/s"), "", "", "", "(the engine's read ceiling)", ps.failure() or "info")
        throughput, _, pairs = paired(b_pg, ps)
        over_etcd = b_pg.rate / d.rate if b_pg.rate and d.rate else None
        table.add("Bpg", f"B on PostgreSQL: one replica ({threads} polling thread{'' if threads == '1' else 's'}, as shipped), a random item of "
                  f"{pg_items:,}, returnData", per_second(b_pg.rate), ms(b_pg.p50), ms(b_pg.p99), cpu_text(b_pg),
                  f"≥ 0.5 × PS, measured {times(throughput)} ({pairs} pairs); ≥ 4 × D, measured {times(over_etcd)}",
                  verdict(None if throughput is None or over_etcd is None else throughput >= 0.5 and over_etcd >= 4,
                          b_pg, ps))
        throughput, _, pairs = paired(b_pg2, ps)
        table.add("Bpg2", "B through nginx (Deploy/nginx.conf, TLS, keep-alive) to two replicas",
                  per_second(b_pg2.rate), ms(b_pg2.p50), ms(b_pg2.p99), "",
                  f"(for comparison) {times(throughput)} PS", b_pg2.failure() or "info")
        table.add("PI", "pgbench single-row INSERT (16-byte unique key, 150-byte payload), own transaction, "
                  "16 connections", per_second(pi.rate, "tx/s"), "", "", "", "(the engine's durable-insert ceiling)",
                  pi.failure() or "info")
        table.add("PA", "pgbench: what one add writes (an item row, its 3 lookup digests and its event, "
                  "keychaind's schema), own transaction, 16 connections", per_second(pa.rate, "tx/s"), "", "", "",
                  "(the engine's ceiling for the same work)", pa.failure() or "info")
        throughput, _, pairs = paired(c_pg, pi)
        same_work, _, _ = paired(c_pg, pa)
        table.add("Cpg", "C on PostgreSQL: adds to one replica", per_second(c_pg.rate, "adds/s"), ms(c_pg.p50),
                  ms(c_pg.p99), cpu_text(c_pg),
                  f"≥ 0.5 × PI, measured {times(throughput)} ({pairs} pairs); {times(same_work)} PA",
                  verdict(None if throughput is None else throughput >= 0.5, c_pg, pi))
        throughput, _, pairs = paired(c_pg2, pi)
        table.add("Cpg2", "C through nginx to two replicas", per_second(c_pg2.rate, "adds/s"), ms(c_pg2.p50),
                  ms(c_pg2.p99), "", f"(for comparison) {times(throughput)} PI", c_pg2.failure() or "info")

    b_pgs, c_pgs = Series(runs, "Bpgs"), Series(runs, "Cpgs")
    ps_s, pi_s, pa_s = Series(runs, "PSs"), Series(runs, "PIs"), Series(runs, "PAs")
    if b_pgs.measured or c_pgs.measured:
        standby = "with a synchronous standby (pg_basebackup, `synchronous_standby_names = '*'`, on the same core)"
        table.add("PSs", f"PS {standby}", per_second(ps_s.rate, "tx/s"), "", "", "", "(the read ceiling)",
                  ps_s.failure() or "info")
        throughput, _, pairs = paired(b_pgs, ps_s)
        alone, _, _ = paired(b_pgs, b_pg)
        table.add("Bpgs", f"Bpg {standby}, alternated with PSs", per_second(b_pgs.rate), ms(b_pgs.p50), ms(b_pgs.p99),
                  cpu_text(b_pgs), f"{times(throughput)} PSs ({pairs} pairs); {times(alone)} Bpg without the standby",
                  b_pgs.failure() or "info")
        table.add("PIs", f"PI {standby}: each commit waits for the standby's flush", per_second(pi_s.rate, "tx/s"),
                  "", "", "", "(the durable-insert ceiling)", pi_s.failure() or "info")
        table.add("PAs", f"PA {standby}", per_second(pa_s.rate, "tx/s"), "", "", "", "(the same work's ceiling)",
                  pa_s.failure() or "info")
        throughput, _, pairs = paired(c_pgs, pi_s)
        same_work, _, _ = paired(c_pgs, pa_s)
        alone, _, _ = paired(c_pgs, c_pg)
        table.add("Cpgs", f"Cpg {standby}, alternated with PIs and PAs", per_second(c_pgs.rate, "adds/s"),
                  ms(c_pgs.p50), ms(c_pgs.p99), cpu_text(c_pgs),
                  f"{times(same_work)} PAs, the same work by pgbench ({pairs} pairs); {times(throughput)} PIs; "
                  f"{times(alone)} Cpg without the standby", c_pgs.failure() or "info")

    def seconds_of(series, key):
        return median(r.get(key) for r in series.by_round.values())

    openbao = Series(runs, "Fbao")
    bao_first = seconds_of(openbao, "first_s")
    if openbao.measured:
        table.add("Fbao", f"OpenBao {facts.get('openbao_version', '?')} HA on one PostgreSQL (two nodes, "
                  "storage postgresql, ha_enabled): the active node killed (SIGKILL), to the first KV version 2 write "
                  "the other acknowledges, asked every 20 ms", f"{bao_first:.2f} s", "", "", "",
                  f"(the anchor) median of {openbao.count}", openbao.failure() or "info")
    for label, what in (("Fkill", "kill -9 of every process on the primary's machine"),
                        ("Ffence", "the primary fenced read-only (`default_transaction_read_only`, reloaded)"),
                        ("Fpartition", "the primary's links cut for 6 s (no reset sent)")):
        failover = Series(runs, label)
        if not failover.measured:
            continue
        first, full = seconds_of(failover, "first_s"), seconds_of(failover, "full_s")
        against = "" if bao_first is None else f"; Fbao {bao_first:.2f} s"
        table.add(label, f"PostgreSQL failover, {what}, then `pg_ctl promote` of the synchronous standby (two servers in "
                  "network namespaces, fsync off); two replicas "
                  "on the two-host URL behind nginx, 4 writers and a reader (Python, keep-alive, "
                  f"{'—' if failover.rate is None else f'{failover.rate:,.0f}'} adds/s before); from the promotion's "
                  "return to the first acknowledged add, and to a quarter second at 90 % of the rate before",
                  "—" if first is None or full is None else f"{first:.2f} s, full rate {full:.2f} s", "", "", "",
                  f"first add ≤ 2 s; median of {failover.count}{against}",
                  verdict(None if first is None else first <= 2, failover))

    startups, unlocks = fact_list(facts, "startup_ms"), fact_list(facts, "unlock_ms")
    table.add("T", f"start-up: exec to the first 200 from /v1/health?lockedcode=200, {items:,} items, locked",
              "—" if not startups else f"{median(startups):.0f} ms", "", "", "", f"median of {len(startups)}",
              "info")
    table.add("U", "unlock: POST /v1/keychain/unlock (Argon2id MODERATE)",
              "—" if not unlocks else f"{median(unlocks):.0f} ms", "", "", "", f"median of {len(unlocks)}", "info")

    exports, imports, backups = fact_list(facts, "export_ms"), fact_list(facts, "import_ms"), fact_list(facts, "backup_ms")
    if exports and imports and backups:
        moved = int(facts.get("migration_items", "0"))
        bundle_mb = int(facts.get("bundle_bytes", "0")) / 1e6
        database_mb = int(facts.get("database_bytes", "0")) / 1e6

        def rate(milliseconds, megabytes):
            seconds = median(milliseconds) / 1000
            return f"{moved / seconds:,.0f} items/s, {megabytes / seconds:.1f} MB/s ({seconds:.2f} s)"

        backup_s = median(backups) / 1000
        table.add("X", f"migration bundle: `keychaind export` of {moved:,} items, offline, one core "
                  f"({bundle_mb:.1f} MB; with two Argon2id MODERATE derivations)", rate(exports, bundle_mb), "", "", "",
                  f"{median(exports) / 1000 / backup_s:.1f} × K's time (median of {len(exports)})", "info")
        table.add("I", f"migration bundle: `keychaind import --conflict fail` of the same into a new keychain "
                  "(one transaction; two Argon2id MODERATE)", rate(imports, bundle_mb), "", "", "",
                  f"{median(imports) / 1000 / backup_s:.1f} × K's time (median of {len(imports)})", "info")
        table.add("K", f"`sqlite3 .backup` of the same stopped database ({database_mb:.1f} MB)",
                  rate(backups, database_mb), "", "", "", f"median of {len(backups)}", "info")

    if not (a.measured or b.measured):
        # A run of one part (BENCH_ONLY=postgres, failover or keys): its rows, without the SQLite ones.
        core = {"A", "H", "B", "B p99", "D", "S", "C", "C/S", "M", "B1M", "M1M", "T", "U"}
        table.rows = [row for row in table.rows if row[0] not in core]
        return table.markdown() + f"\n\nRun {facts.get('started', '?')}, keychaind {facts.get('commit', '?')}, " \
            f"{facts.get('cpu', '?')} ({facts.get('cores', '?')} cores); took {facts.get('elapsed', '?')}.\n"
    disturbed = {s.label: s.disturbed_rounds() for s in (h, b, d, b_default, b_audit, b_big, b_small, scan, search) if s.measured}
    disturbed_text = "; ".join(f"{label} in rounds {', '.join(map(str, n))}" for label, n in disturbed.items() if n)
    notes = [
        "",
        f"Run {facts.get('started', '?')}, keychaind {facts.get('commit', '?')}, {facts.get('cpu', '?')} "
        f"({facts.get('cores', '?')} cores), load average {facts.get('load_start', '?')} at the start and "
        f"{facts.get('load_end', '?')} at the end; took {facts.get('elapsed', '?')}.",
        f"wrk -t1 -c16 -d{facts.get('duration', '?')}s on core 1, servers on core 0, A, H, B, D and B* alternated "
        f"in {a.count} rounds, each in another order. Figures are medians over the rounds, ratios medians of "
        "per-round ratios. "
        "Server CPU: the server's share of core 0 during the runs and its CPU time per request.",
        "Server-bound runs whose server got less than 90% of its core (the machine was busy with other "
        f"work): {disturbed_text or 'none'}.",
        f"Data directory on {facts.get('filesystem', '?')}. Preloading {items:,} items over HTTP took "
        f"{facts.get('preload_seconds', '?')} s"
        + (f", growing to {big:,} {facts['preload_big_seconds']} s" if "preload_big_seconds" in facts else "")
        + ".",
    ]
    if search.measured:
        notes.append(
            f"Id and Ic: {search.count} rounds of {facts.get('cert_duration', '?')} s, alternated; Id's keychain got its "
            f"{int(facts.get('cert_items', '0')):,} certificates (one identity, then certificates of the same key, 8 "
            f"connections, durable adds) in {facts.get('cert_preload_seconds', '?')} s. The certificates are one openssl "
            "leaf with its CN digits and serial patched: their signatures do not verify, which keychaind does not check.")
    return table.markdown() + "\n" + "\n".join(notes) + "\n"


def results_name(facts) -> str:
    """<UTC date>-<short commit>.json, from the run's start and commit facts."""
    date = facts.get("started", "unknown")[:10]
    commit = facts.get("commit", "unknown").split("+")[0] or "unknown"
    return f"{date}-{commit}.json"


def write_results(directory: str, runs, facts) -> str:
    records = [record for label in sorted(runs) for _, record in sorted(runs[label].items(), key=lambda r: str(r[0]))]
    path = os.path.join(directory, results_name(facts))
    os.makedirs(directory, exist_ok=True)
    with open(path, "w") as file:
        json.dump({"facts": facts, "runs": records}, file, indent=1, sort_keys=True)
        file.write("\n")
    return path


def markdown(path: str) -> str:
    with open(path) as file:
        results = json.load(file)
    if results.get("imported"):
        header = "| " + " | ".join(results["columns"]) + " |"
        rule = "|" + "---|" * len(results["columns"])
        lines = [header, rule] + ["| " + " | ".join(row) + " |" for row in results["rows"]]
        return "\n".join(lines) + "\n\n" + "\n".join(results.get("notes", [])) + "\n"
    runs = defaultdict(dict)
    for record in results["runs"]:
        runs[record["label"]][record["round"]] = record
    return build(runs, results["facts"])


def main() -> int:
    if sys.argv[1:2] == ["--markdown"]:
        print(markdown(sys.argv[2]), end="")
        return 0
    runs, facts = load(sys.argv[1], sys.argv[2])
    text = build(runs, facts)
    with open(sys.argv[3], "w") as file:
        file.write(text)
    print(text)
    if sys.argv[4:5] == ["--results"]:
        print(f"results: {write_results(sys.argv[5], runs, facts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
