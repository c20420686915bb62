#!/bin/sh
# Runs the side-by-side benchmark from the module root; flags pass through
# (go run ./bench --help lists them), for example:
#   bench/bench.sh --peer http://127.0.0.1:8082 --markdown bench/results.md
set -e
cd "$(dirname "$0")/.."
exec go run ./bench "$@"
