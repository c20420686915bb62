#!/usr/bin/env bash
# Times the charter binary on the generated benchmark repository: 300 schema
# files (100 Avro, 100 Protobuf, 100 JSON Schema; a third of each breaks
# compatibility) in a git repository of two commits, checked with
# `charter check --against git:HEAD~1`. Prints wall time and peak memory
# (GNU time's maximum resident set size) over RUNS runs (default 5).
# The in-process figures are `go test -bench CheckGit300 ./registry/project`.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${RUNS:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

CHARTER_BENCH_REPO="$work/repo" go test -count=1 -run '^TestWriteBenchRepository$' ./registry/project >/dev/null
CGO_ENABLED=0 go build -o "$work/charter" ./cmd/charter
files=$(git -C "$work/repo" ls-files | grep -c -E '\.(avsc|proto|json)$')
echo "repository: $files schema files, $(git -C "$work/repo" rev-list --count HEAD) commits; $(nproc) CPUs"

for i in $(seq "$runs"); do
	set +e
	/usr/bin/time -v "$work/charter" check -C "$work/repo" --against git:HEAD~1 --format json >"$work/out.json" 2>"$work/time.txt"
	code=$?
	set -e
	if [ "$code" -ne 1 ]; then
		echo "charter check exited $code, want 1 (the repository breaks compatibility)" >&2
		cat "$work/time.txt" >&2
		exit 1
	fi
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
	cpu=$(sed -n 's/.*Percent of CPU this job got: //p' "$work/time.txt")
	echo "run $i: wall $wall, peak RSS $((rss / 1024)) MiB, CPU $cpu"
done
grep -o '"errors": [0-9]*' "$work/out.json" | head -1
