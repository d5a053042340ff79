#!/usr/bin/env bash
# The release build of keychaind, the one every release binary comes from (the Makefile, the
# Dockerfile, the container and attack suites, the benchmarks):
#
#   Scripts/build-release.sh [swift build options], e.g. --product keychaind --scratch-path .build-container
#   Scripts/build-release.sh --package-path Benchmarks --product keychaind-core-bench (a sub-package)
#
# Link-time optimized across modules, which links with lld; the Swift runtime linked in; and the
# functions a GET runs placed first and together (an lld option, given only here, where lld is
# the linker: `swift build -c release` alone links with the toolchain's default and works too).
# What each is worth: docs/performance.md#link-time-optimization, #swift-runtime-linked-in and
# #hot-functions-first.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
exec "${SWIFT:-swift}" build -c release --experimental-lto-mode=full --static-swift-stdlib \
    -Xlinker "--symbol-ordering-file=$root/Benchmarks/hot-functions.order" -Xlinker --no-warn-symbol-ordering "$@"
