#!/usr/bin/env bash
# Times the charter binary on the generated benchmark repository: 300 schema
# files (100 Avro, 100 Protobuf, 100 JSON Schema; a third of each breaks
# compatibility) in a git repository of two commits. Prints wall time and
# peak memory (GNU time's maximum resident set size) over RUNS runs
# (default 5).
#
#   MODE=git (default)  charter check --against git:HEAD~1, no registry.
#   MODE=registry       starts `charter serve` on a free port in 19600-19700
#                       with a temporary SQLite database, registers the
#                       HEAD~1 version of every schema under the subject
#                       `charter check` maps it to (charter register, one
#                       process per schema), then times
#                       charter check --against registry. The error count
#                       must equal the git mode's.
#
# The in-process figures are `go test -bench 'CheckGit300|CheckRegistry300'
# ./action/project`. Needs GNU time (/usr/bin/time) and, for the registry
# mode, jq.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${RUNS:-5}"
mode="${MODE:-git}"
case "$mode" in
git | registry) ;;
*)
	echo "MODE=$mode: want git or registry" >&2
	exit 2
	;;
esac
if [ "$mode" = registry ] && ! command -v jq >/dev/null; then
	echo "MODE=registry needs jq" >&2
	exit 2
fi

work="$(mktemp -d)"
server=""
cleanup() {
	if [ -n "$server" ]; then
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

CHARTER_BENCH_REPO="$work/repo" go test -count=1 -run '^TestWriteBenchRepository$' ./action/project >/dev/null
CGO_ENABLED=0 go build -o "$work/charter" ./cmd/charter
charter="$work/charter"
files=$(git -C "$work/repo" ls-files | grep -c -E '\.(avsc|proto|json)$')
echo "repository: $files schema files, $(git -C "$work/repo" rev-list --count HEAD) commits; $(nproc) CPUs; mode $mode"

# errors prints the error count of a `charter check --format json` output.
errors() {
	grep -o '"errors": [0-9]*' "$1" | head -1 | grep -o '[0-9]*$'
}

# The git check is the reference: its error count (and, for the registry
# mode, its subject-to-file mapping).
set +e
"$charter" check -C "$work/repo" --against git:HEAD~1 --format json >"$work/git.json" 2>"$work/git.err"
code=$?
set -e
if [ "$code" -ne 1 ]; then
	echo "charter check --against git:HEAD~1 exited $code, want 1 (the repository breaks compatibility)" >&2
	cat "$work/git.err" >&2
	exit 1
fi
want=$(errors "$work/git.json")

against=(--against git:HEAD~1)
if [ "$mode" = registry ]; then
	# A free port: nothing answers on it, and the server we start holds it.
	url=""
	for port in $(seq 19600 19700 | shuf); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			continue
		fi
		"$charter" serve --listen "127.0.0.1:$port" --db "$work/registry.db" --log-level warn 2>"$work/serve.log" &
		server=$!
		for _ in $(seq 100); do
			if ! kill -0 "$server" 2>/dev/null; then
				break
			fi
			if "$charter" subjects --registry "http://127.0.0.1:$port" >/dev/null 2>&1; then
				url="http://127.0.0.1:$port"
				break
			fi
			sleep 0.05
		done
		if [ -n "$url" ]; then
			break
		fi
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
		server=""
		rm -f "$work/registry.db"
	done
	if [ -z "$url" ]; then
		echo "charter serve did not start on any port in 19600-19700" >&2
		cat "$work/serve.log" >&2
		exit 1
	fi

	# The base tree, registered subject by subject.
	mkdir "$work/base"
	git -C "$work/repo" archive HEAD~1 | tar -x -C "$work/base"
	jq -r '.subjects[] | "\(.subject)\t\(.file)"' "$work/git.json" >"$work/subjects.tsv"
	start=$(date +%s.%N)
	n=0
	while IFS=$'\t' read -r subject file; do
		if ! "$charter" register "$subject" "$work/base/$file" --registry "$url" >/dev/null 2>"$work/register.err"; then
			echo "charter register $subject $file failed:" >&2
			cat "$work/register.err" >&2
			exit 1
		fi
		n=$((n + 1))
	done <"$work/subjects.tsv"
	end=$(date +%s.%N)
	if [ "$n" -ne "$files" ]; then
		echo "registered $n subjects, want $files" >&2
		exit 1
	fi
	echo "registry: $url, $n subjects registered from HEAD~1 in $(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b-a}') s"
	against=(--against registry --registry "$url")
fi

for i in $(seq "$runs"); do
	set +e
	/usr/bin/time -v "$charter" check -C "$work/repo" "${against[@]}" --format json >"$work/out.json" 2>"$work/time.txt"
	code=$?
	set -e
	if [ "$code" -ne 1 ]; then
		echo "charter check ${against[*]} exited $code, want 1 (the repository breaks compatibility)" >&2
		cat "$work/time.txt" >&2
		exit 1
	fi
	got=$(errors "$work/out.json")
	if [ "$got" != "$want" ]; then
		echo "charter check ${against[*]}: $got errors, want $want (the git:HEAD~1 count)" >&2
		exit 1
	fi
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
	cpu=$(sed -n 's/.*Percent of CPU this job got: //p' "$work/time.txt")
	echo "run $i: wall $wall, peak RSS $((rss / 1024)) MiB, CPU $cpu"
done
echo "errors: $want (matches --against git:HEAD~1)"
