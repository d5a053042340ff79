#!/usr/bin/env bash
# The unit tests (`swift test "$@"`). When the run fails, its end says where, since CI shows a
# log's end: the tests that started and never ended (a crash takes the whole process), what was
# printed just before a crash, the crashing thread's frames by function and line, and the failures.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
log=$(mktemp /tmp/keychaind-unit.XXXXXX)
trap 'rm -f "$log"' EXIT
# Tests/CrashFrames reports a crash's frames; Swift's backtracer, which cannot unwind past
# libc's abort() here, is left out so that it never takes the signal first.
export SWIFT_BACKTRACE="enable=no"
${SWIFT:-swift} test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[[ $status -eq 0 ]] && exit 0
python3 Tests/unit/summary.py "$log"
exit "$status"
