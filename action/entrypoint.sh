#!/usr/bin/env bash
# Entry script of Charter's CI gate (action.yml runs it; any CI can).
#
# Builds charter from the Charter source tree this script belongs to (the
# version the action is pinned to), then runs, in $GITHUB_WORKSPACE (or the
# current directory):
#
#   charter check --format github --against <baseline> -C <dir>
#       --summary-file $GITHUB_STEP_SUMMARY --github-output $GITHUB_OUTPUT
#
# and exits with charter's code: 0 pass, 1 a finding is an error, 2 usage,
# configuration or I/O error.
#
# Environment (all optional):
#   CHARTER_BIN       a charter binary to use instead of building one
#   CHARTER_SOURCE    Charter's source tree (default: this script's parent)
#   CHARTER_AGAINST   baseline (default git:origin/$GITHUB_BASE_REF on pull
#                     requests, else git:HEAD~1)
#   CHARTER_DIR       directory charter.yaml is found from (default .)
#   CHARTER_CONFIG    path of charter.yaml
#   CHARTER_REGISTRY_URL, CHARTER_TOKEN   read by charter itself
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="${CHARTER_SOURCE:-$here/..}"

bin="${CHARTER_BIN:-}"
if [ -z "$bin" ]; then
	out="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/charter-action"
	mkdir -p "$out"
	echo "::group::go build charter"
	(cd "$src" && CGO_ENABLED=0 go build -o "$out/charter" ./cmd/charter)
	"$out/charter" version
	echo "::endgroup::"
	bin="$out/charter"
fi

cd "${GITHUB_WORKSPACE:-.}"

against="${CHARTER_AGAINST:-}"
if [ -z "$against" ]; then
	if [ -n "${GITHUB_BASE_REF:-}" ]; then
		against="git:origin/${GITHUB_BASE_REF}"
	else
		against="git:HEAD~1"
	fi
fi

# A shallow checkout (actions/checkout's default) lacks the base branch:
# fetch its tip, which is all charter reads.
if [[ "$against" == git:origin/* ]]; then
	ref="${against#git:origin/}"
	if ! git rev-parse --verify --quiet "origin/$ref^{commit}" >/dev/null; then
		git fetch --quiet --no-tags --depth=1 origin "+refs/heads/$ref:refs/remotes/origin/$ref"
	fi
fi

args=(check --format github --against "$against" -C "${CHARTER_DIR:-.}")
if [ -n "${CHARTER_CONFIG:-}" ]; then args+=(--config "$CHARTER_CONFIG"); fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then args+=(--summary-file "$GITHUB_STEP_SUMMARY"); fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then args+=(--github-output "$GITHUB_OUTPUT"); fi

exec "$bin" "${args[@]}"
