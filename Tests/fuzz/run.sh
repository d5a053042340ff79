#!/usr/bin/env bash
# Fuzzing: builds keychaind-fuzz with libFuzzer and AddressSanitizer
# (swiftc -sanitize=fuzzer,address) in .build-fuzz, then runs each target of Fuzz/Targets for
# FUZZ_SECONDS (10 by default: nine targets in `make test`; `make fuzz` gives each 600) from its committed seeds in
# Fuzz/corpus/<target>. New inputs go to a temporary copy, not the repository. An input slower
# than 10 s counts as a hang. On a crash or a hang it prints the input (base64) and fails: add
# the input to Fuzz/corpus/<target>/ as a regression, which FuzzCorpusTests then replays in
# `swift test --package-path Fuzz`. Prints how many inputs each target ran.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/Tests/lib.sh"
make_tmp
seconds=${FUZZ_SECONDS:-10}

cd "$root"
swift build --package-path Fuzz --product keychaind-fuzz --scratch-path "$root/.build-fuzz" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
    >"$tmp/build.log" 2>&1 || {
    grep -v 'ld.gold: warning' "$tmp/build.log" | tail -30 >&2
    echo "fuzz: swift build failed" >&2
    exit 1
}
fuzzer="$root/.build-fuzz/debug/keychaind-fuzz"
failed=0
for seeds in "$root"/Fuzz/corpus/*/; do
    target=$(basename "$seeds")
    mkdir -p "$tmp/corpus/$target" "$tmp/artifacts/$target"
    cp "$seeds"* "$tmp/corpus/$target/"
    log="$tmp/$target.log"
    if KEYCHAIND_FUZZ_TARGET=$target timeout $((seconds + 120)) "$fuzzer" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$tmp/artifacts/$target/" "$tmp/corpus/$target" >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        added=$(sed -n 's/^stat::new_units_added: *//p' "$log")
        echo "fuzz: $target: $runs inputs in ${seconds} s, $added new to the corpus, no crash or hang"
    else
        failed=1
        echo "fuzz: $target: FAILED" >&2
        grep -E 'ERROR|SUMMARY|Fatal error|Precondition failed|deadly signal|timeout' "$log" | head -10 >&2 || true
        for artifact in "$tmp/artifacts/$target/"*; do
            [[ -f $artifact ]] || continue
            echo "fuzz: $target: input $(basename "$artifact"), base64: $(base64 -w0 "$artifact")" >&2
        done
    fi
done
exit "$failed"
