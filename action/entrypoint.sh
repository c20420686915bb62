#!/usr/bin/env bash
# Entry script of Charter's CI gate. action.yml runs it as four steps:
#
#   entrypoint.sh go        need=true unless a go on PATH is at least the
#                           version of Charter's go.mod (then setup-go, whose
#                           Go would stay on PATH, is skipped)
#   entrypoint.sh prepare   names the build: the version (the action's tag,
#                           else its ref) and commit to stamp into charter,
#                           the cache key and directory (step outputs)
#   entrypoint.sh build     builds charter and its helper unless the cached
#                           ones carry that version (between action.yml's
#                           cache restore and save)
#   entrypoint.sh [check]   the same build check, puts charter on PATH,
#                           works out the baseline of the event and fetches
#                           it into a shallow clone, then runs
#
#     charter check --format github --against <baseline> -C <dir>
#         --fail-on <error|warning> --summary-file <summary>
#         --github-output $GITHUB_OUTPUT --report-file sarif=<sarif file>
#
#   and, with comment: true on a pull request, posts or updates one comment
#   with the Markdown summary. Any CI can run it (without GITHUB_* it
#   compares with HEAD~1 and writes no GitHub files). Its temporary
#   directory (charter-run.XXXXXX) is removed on exit.
#
# Exit status: charter's (0 pass, 1 a failing finding), or 2 when the gate
# could not run; every such failure writes one ::error annotation, one
# step summary section and result=error (and, in check with comment: true,
# updates the pull request's comment to say so).
#
# Environment (all optional):
#   CHARTER_BIN           a charter binary to use instead of building one
#   CHARTER_SOURCE        Charter's source tree (default: this script's parent)
#   CHARTER_HOME          cache directory of the build (bin/, libexec/)
#   CHARTER_ACTION_REF, CHARTER_ACTION_REPOSITORY
#                         the action's ref and owner/name (from the GitHub
#                         context; read from the action's path when empty)
#   CHARTER_VERSION, CHARTER_COMMIT   what prepare worked out (prepare takes
#                         CHARTER_COMMIT as given when set)
#   CHARTER_AGAINST       baseline (default: from the event, see README.md)
#   CHARTER_DIR           directory charter.yaml is found from (default .)
#   CHARTER_CONFIG        path of charter.yaml
#   CHARTER_FAIL_ON       error (default) or warning
#   CHARTER_EVIDENCE      events per pair for --evidence: "" , 0 or false
#                         off (default), true 100, or a number
#   CHARTER_SARIF_FILE    where the SARIF report goes (default
#                         $RUNNER_TEMP/charter.sarif; without RUNNER_TEMP
#                         a charter-sarif.XXXXXX directory of the run's)
#   CHARTER_COMMENT       true: comment on the pull request
#   CHARTER_GITHUB_TOKEN  token for git fetch and the comment
#   CHARTER_REGISTRY_URL, CHARTER_TOKEN   read by charter itself
set -Eeuo pipefail

title="Charter schema check"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="${CHARTER_SOURCE:-$here/..}"
tmp_root="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
home="${CHARTER_HOME:-$tmp_root/charter-action}"
buildinfo="github.com/charter-dev/charter/cmd/internal/buildinfo"

# escape_data escapes a workflow command's message (as @actions/core does).
escape_data() {
	local s="$1"
	s="${s//%/%25}"
	s="${s//$'\r'/%0D}"
	s="${s//$'\n'/%0A}"
	printf '%s' "$s"
}

summary() { if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then printf '%s\n\n' "$1" >>"$GITHUB_STEP_SUMMARY"; fi; }
output() { if [ -n "${GITHUB_OUTPUT:-}" ]; then printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; fi; }
notice() { echo "::notice title=$title::$(escape_data "$1")"; }

# fail MESSAGE [DETAIL]: an ::error annotation, a step summary and
# result=error (each written once, and exit status 2 even when the GitHub
# files cannot be written), the pull request's comment updated to say so
# (check mode, comment: true), then exit 2.
mode="${1:-check}"
failed=""
fail() {
	trap - ERR
	set +e
	local msg="$1" detail="${2:-}" md
	if [ -n "$failed" ]; then exit 2; fi
	failed=1
	if [ -n "$detail" ]; then
		echo "::error title=$title::$(escape_data "$msg"$'\n'"$detail")"
		md="$msg"$'\n\n```\n'"$detail"$'\n```'
	else
		echo "::error title=$title::$(escape_data "$msg")"
		md="$msg"
	fi
	summary "### ❌ $title could not run"$'\n\n'"$md" 2>/dev/null
	output result error 2>/dev/null
	fail_comment "$md"
	exit 2
}
# The ERR trap is inherited by command substitutions (set -E): there it
# only ends the subshell, and the command that ran it fails once, in the
# script itself.
trap 'rc=$?; if [ "$BASH_SUBSHELL" -gt 0 ]; then exit "$rc"; fi; fail "the action failed unexpectedly (entrypoint.sh line $LINENO: $BASH_COMMAND, exit $rc)"' ERR

# The run's own temporary directory (check mode), removed on exit.
work=""
cleanup() { if [ -n "$work" ]; then rm -rf "$work"; fi; }
trap cleanup EXIT

is_sha() { [[ "$1" =~ ^[0-9a-f]{40}$ ]]; }

# remote_url is the action's repository on the server ("" when unknown).
remote_url() {
	if [ -n "$action_repo" ]; then printf '%s/%s' "${GITHUB_SERVER_URL:-https://github.com}" "$action_repo"; fi
}

# auth_args prints git -c options carrying the token for https remotes,
# unless a credential is configured already (actions/checkout persists
# one): two Authorization headers are refused.
auth_args=()
set_auth() {
	local url="$1" dir="$2" host
	auth_args=()
	if [ -z "${CHARTER_GITHUB_TOKEN:-}" ] || [[ "$url" != https://* ]]; then return 0; fi
	if git -C "$dir" config --get-regexp '^http\..*\.extraheader$' >/dev/null 2>&1; then return 0; fi
	host="${url#https://}"
	host="${host%%/*}"
	auth_args=(-c "http.https://$host/.extraheader=AUTHORIZATION: basic $(printf 'x-access-token:%s' "$CHARTER_GITHUB_TOKEN" | base64 | tr -d '\n')")
}

# identify sets version and commit. The commit is CHARTER_COMMIT when
# set, else the ref when it is a SHA, else the source tree's HEAD (when
# the source is a git work tree's root), else the ref resolved on the
# server (git ls-remote), else "unknown". The version is the ref when it
# is a name (v1.4.0, main), else the tag that points at the commit on the
# server, else git describe of the source, else the short commit, else
# "dev".
identify() {
	action_ref="${CHARTER_ACTION_REF:-}"
	action_repo="${CHARTER_ACTION_REPOSITORY:-}"
	# Composite actions often see an empty github.action_ref; the runner
	# checks actions out in .../_actions/OWNER/NAME/REF/.
	if [ -z "$action_ref" ] && [[ "$src" == */_actions/*/*/* ]]; then
		local rest="${src#*/_actions/}"
		rest="${rest%/}"
		rest="${rest%/action/..}"
		rest="${rest%/..}"
		IFS=/ read -r owner name ref _ <<<"$rest"
		action_ref="$ref"
		action_repo="${action_repo:-$owner/$name}"
	fi
	commit="" version=""
	local url listing
	url="$(remote_url)"
	if [ -n "${CHARTER_COMMIT:-}" ]; then
		commit="$CHARTER_COMMIT"
	elif is_sha "$action_ref"; then
		commit="$action_ref"
	elif [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null || true)" = "$(cd "$src" && pwd -P)" ] &&
		commit="$(git -C "$src" rev-parse --verify --quiet HEAD 2>/dev/null)"; then
		:
	elif [ -n "$action_ref" ] && [ -n "$url" ]; then
		set_auth "$url" "$src"
		listing="$(git ${auth_args[@]+"${auth_args[@]}"} -c http.lowSpeedLimit=1000 -c http.lowSpeedTime=20 \
			ls-remote "$url" "refs/tags/$action_ref" "refs/tags/$action_ref^{}" "refs/heads/$action_ref" 2>/dev/null || true)"
		commit="$(awk '/\^\{\}$/ {print $1; found=1; exit} {if (!first) first=$1} END {if (!found && first) print first}' <<<"$listing")"
	fi
	if [ -n "$action_ref" ] && ! is_sha "$action_ref"; then
		version="$action_ref"
	elif [ -n "$commit" ] && [ -n "$url" ]; then
		set_auth "$url" "$src"
		listing="$(git ${auth_args[@]+"${auth_args[@]}"} -c http.lowSpeedLimit=1000 -c http.lowSpeedTime=20 ls-remote --tags "$url" 2>/dev/null || true)"
		version="$(awk -v c="$commit" '$1 == c {t=$2; sub(/^refs\/tags\//, "", t); sub(/\^\{\}$/, "", t); print t; exit}' <<<"$listing")"
	fi
	if [ -z "$version" ]; then
		version="$(git -C "$src" describe --tags --always --dirty 2>/dev/null || true)"
	fi
	if [ -z "$version" ] && [ -n "$commit" ]; then version="${commit:0:12}"; fi
	version="${version:-dev}"
	commit="${commit:-unknown}"
}

# go_needed: need=true when no go on PATH is at least the version of the
# go line of Charter's go.mod (then action.yml runs actions/setup-go,
# whose Go stays on PATH for the job's later steps), need=false when one
# is (the runner's Go, or the job's own, stays as it is).
go_needed() {
	local want have
	want="$(awk '$1 == "go" {print $2; exit}' "$src/go.mod" 2>/dev/null || true)"
	have="$(go env GOVERSION 2>/dev/null || true)"
	have="${have#go}"
	if [ -n "$want" ] && [[ "$have" =~ ^[0-9]+(\.[0-9]+)*$ ]] && version_at_least "$have" "$want"; then
		echo "go $have is on PATH (Charter's go.mod wants $want): actions/setup-go is skipped"
		output need false
	else
		echo "no go ${want:+$want or newer }on PATH${have:+ (go $have)}: actions/setup-go installs ${want:+go $want}"
		output need true
	fi
}

# version_at_least A B: dotted version A >= B.
version_at_least() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x, "."); m = split(b, y, ".")
		for (i = 1; i <= (n > m ? n : m); i++) {
			if (x[i] + 0 > y[i] + 0) exit 0
			if (x[i] + 0 < y[i] + 0) exit 1
		}
		exit 0
	}'
}

prepare() {
	command -v go >/dev/null || fail "go is not installed: keep the action's setup-go input true, or install Go (the version of Charter's go.mod) before this step"
	local gover key
	gover="$(go env GOVERSION)"
	identify
	key="charter-${RUNNER_OS:-$(uname -s)}-${RUNNER_ARCH:-$(uname -m)}-$gover-$version-$commit"
	key="${key//[^A-Za-z0-9._-]/-}"
	echo "charter $version ($commit) with $gover; cache key $key"
	output version "$version"
	output commit "$commit"
	output key "$key"
	output dir "$home"
}

# build puts charter (stamped with version and commit) and charter-action
# in $home, unless the binaries there already carry that version.
build() {
	bin="$home/bin/charter"
	helper="$home/libexec/charter-action"
	local want="charter $version ($commit)" have out ld
	have="$("$bin" version 2>/dev/null || true)"
	if [ "$have" = "$want" ] && [ -x "$helper" ] && [ "$commit" != unknown ]; then
		echo "Using the cached $want"
		return
	fi
	command -v go >/dev/null || fail "go is not installed: keep the action's setup-go input true, or install Go before this step"
	mkdir -p "$home/bin" "$home/libexec"
	ld="-X $buildinfo.Version=$version -X $buildinfo.Commit=$commit"
	echo "::group::go build charter $version ($commit)"
	if ! out="$(cd "$src" && CGO_ENABLED=0 go build -buildvcs=false -ldflags "$ld" -o "$bin" ./cmd/charter 2>&1 &&
		CGO_ENABLED=0 go build -buildvcs=false -o "$helper" ./action/internal/charter-action 2>&1)"; then
		echo "::endgroup::"
		fail "go build of charter failed in $src" "$(tail -n 20 <<<"$out")"
	fi
	echo "::endgroup::"
}

# The helper alone, next to a charter given by CHARTER_BIN.
build_helper() {
	helper="$home/libexec/charter-action"
	if [ -x "$helper" ]; then return; fi
	mkdir -p "$home/libexec"
	local out
	if ! out="$(cd "$src" && CGO_ENABLED=0 go build -buildvcs=false -o "$helper" ./action/internal/charter-action 2>&1)"; then
		fail "go build of the action's helper failed in $src" "$(tail -n 20 <<<"$out")"
	fi
}

has_commit() { git -C "$dir" rev-parse --verify --quiet "$1^{commit}" >/dev/null 2>&1; }
rev_of() { git -C "$dir" rev-parse --verify --quiet "$1^{commit}" 2>/dev/null || true; }

# fetch ARGS...: git fetch --quiet --no-tags ARGS through the existing
# remote origin, with the token when no credential is configured; the
# error goes to fetch_err.
fetch_err=""
fetch() {
	local url
	if ! url="$(git -C "$dir" remote get-url origin 2>/dev/null)"; then
		fetch_err="the repository has no remote named origin"
		return 1
	fi
	set_auth "$url" "$dir"
	echo "git fetch $* (origin)"
	fetch_err="$(git ${auth_args[@]+"${auth_args[@]}"} -C "$dir" fetch --quiet --no-tags "$@" 2>&1)" || return 1
}

# missing WHAT: the baseline is not in the clone and could not be fetched.
missing() {
	fail "the baseline ($1) is not in this checkout and fetching it failed: set fetch-depth: 0 on actions/checkout (or fetch it before this step), or pass the action an against: input" "$fetch_err"
}

# unknown REV: REV is not a commit of the repository even with its whole
# history fetched (a clone that is still shallow is unshallowed first).
unknown() {
	local rev="$1" n
	if [ "$(git -C "$dir" rev-parse --is-shallow-repository)" = true ]; then
		fetch --unshallow origin "$(git -C "$dir" rev-parse HEAD)" || missing "$rev"
		if has_commit "$rev"; then return 0; fi
	fi
	n="$(git -C "$dir" rev-list --count HEAD 2>/dev/null || echo "?")"
	fail "the baseline git:$rev does not exist in the repository's history (HEAD has $n commits in all): pass the action another against: input"
}

# empty_baseline: nothing to compare with. charter reads an empty
# directory of the run's; the reports call it "none (REASON)".
empty_baseline() {
	mkdir -p "$work/empty-baseline"
	against="dir:$work/empty-baseline"
	against_label="none ($1)"
	notice "$1: there is no earlier commit to compare with, so every subject is new"
}

# base REF SHA: the base branch REF at commit SHA (pull requests, merge
# queues); either may be empty.
base() {
	local ref="$1" sha="$2"
	if [ -z "$sha" ]; then
		if ! has_commit "refs/remotes/origin/$ref"; then
			fetch --depth=1 origin "+refs/heads/$ref:refs/remotes/origin/$ref" || missing "branch $ref"
		fi
		against="git:origin/$ref"
		return
	fi
	if [ -n "$ref" ] && [ "$(rev_of "refs/remotes/origin/$ref")" = "$sha" ]; then
		against="git:origin/$ref"
		return
	fi
	# The commit is kept under a ref of the action's own: origin/REF
	# names the branch's tip, which may have moved on since.
	if ! has_commit "$sha"; then
		fetch --depth=1 origin "+$sha:refs/charter/baseline" || missing "commit $sha${ref:+ of $ref}"
	fi
	against="git:$sha"
}

# merge_parent: on a pull request checked out as GitHub's merge commit
# (refs/pull/N/merge, actions/checkout's default), the base is the merge
# commit's first parent: the base branch as GitHub merged it, which the
# payload's base.sha may be older than. Prints the parent's SHA, or
# nothing when HEAD is not that merge commit.
merge_parent() {
	local ref="${GITHUB_REF:-}" head parents
	[[ "$ref" =~ ^refs/pull/[0-9]+/merge$ ]] || return 0
	head="$(rev_of HEAD)"
	[ -n "$head" ] || return 0
	if [ -n "${GITHUB_SHA:-}" ] && [ "$GITHUB_SHA" != "$head" ]; then return 0; fi
	# A shallow clone holds the commit object, parents listed, without them.
	parents="$(git -C "$dir" cat-file commit "$head" | awk '/^parent / {print $2} /^$/ {exit}')"
	if [ "$(wc -l <<<"$parents")" -eq 2 ]; then head -n 1 <<<"$parents"; fi
}

# previous: the commit before HEAD, deepening a shallow clone by one; a
# root commit compares with nothing.
previous() {
	if ! has_commit HEAD; then
		empty_baseline "the repository has no commit yet"
		return
	fi
	if ! has_commit HEAD~1; then
		if [ "$(git -C "$dir" rev-parse --is-shallow-repository)" = true ]; then
			fetch --deepen=1 origin "$(git -C "$dir" rev-parse HEAD)" || missing "HEAD~1"
		fi
		if ! has_commit HEAD~1; then
			empty_baseline "HEAD is the repository's first commit"
			return
		fi
	fi
	against="git:HEAD~1"
}

# explicit: the against input; a git: revision missing from a shallow
# clone is fetched when it names a branch, a tag, a commit or HEAD~N.
explicit() {
	against="$1"
	case "$against" in git:*) ;; *) return ;; esac
	local rev="${against#git:}" n
	if has_commit "$rev"; then return; fi
	case "$rev" in
	origin/*) fetch --depth=1 origin "+refs/heads/${rev#origin/}:refs/remotes/$rev" || missing "$rev" ;;
	HEAD~* | HEAD^*)
		n="${rev#HEAD}"
		n="${n#[~^]}"
		n="${n:-1}"
		[[ "$n" =~ ^[0-9]+$ ]] || fail "cannot fetch $rev into a shallow clone: set fetch-depth: 0 on actions/checkout"
		fetch "--deepen=$n" origin "$(git -C "$dir" rev-parse HEAD)" || missing "$rev"
		;;
	*)
		if is_sha "$rev"; then
			fetch --depth=1 origin "$rev" || missing "$rev"
		elif ! fetch --depth=1 origin "+refs/tags/$rev:refs/tags/$rev"; then
			[ "$(git -C "$dir" symbolic-ref -q HEAD || true)" != "refs/heads/$rev" ] || missing "$rev"
			fetch --depth=1 origin "+refs/heads/$rev:refs/heads/$rev" || missing "$rev"
		fi
		;;
	esac
	has_commit "$rev" || unknown "$rev"
}

# read_event sets ev_* from the event payload.
ev_pr_number="" ev_base_sha="" ev_base_ref="" ev_before="" ev_deleted="" ev_default_branch=""
read_event() {
	if [ -z "${GITHUB_EVENT_PATH:-}" ]; then return; fi
	local lines k v
	lines="$("$helper" event 2>&1)" || fail "cannot read the event payload $GITHUB_EVENT_PATH" "$lines"
	while IFS='=' read -r k v; do
		case "$k" in
		pr_number | base_sha | base_ref | before | deleted | default_branch) printf -v "ev_$k" '%s' "$v" ;;
		esac
	done <<<"$lines"
}

# baseline sets against from the event (CHARTER_AGAINST beats it).
baseline() {
	case "${CHARTER_AGAINST:-git:}" in
	git:*)
		if ! git -C "$dir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
			fail "the workspace $(pwd) is not a git checkout: add actions/checkout before this step (or pass the action an against: dir:PATH or registry input)"
		fi
		;;
	esac
	if [ -n "${CHARTER_AGAINST:-}" ]; then
		explicit "$CHARTER_AGAINST"
		return
	fi
	local event="${GITHUB_EVENT_NAME:-}"
	case "$event" in
	pull_request | pull_request_target | merge_group)
		local ref="${ev_base_ref:-${GITHUB_BASE_REF:-}}"
		local parent
		parent="$(merge_parent)"
		if [ -n "$parent" ]; then
			if ! has_commit "$parent"; then
				fetch --deepen=1 origin "$(rev_of HEAD)" || missing "the merge commit's first parent, $parent"
				has_commit "$parent" || missing "the merge commit's first parent, $parent"
			fi
			against="git:$parent"
			echo "Base: $parent, the first parent of the merge commit ${GITHUB_REF}"
			return
		fi
		[ -n "$ref$ev_base_sha" ] || fail "the $event event names no base branch (GITHUB_BASE_REF and the payload's base are empty): pass the action an against: input"
		base "$ref" "$ev_base_sha"
		;;
	push)
		if [ "$ev_deleted" = true ]; then
			against=""
			return
		fi
		if [ -z "$ev_before" ] || [[ "$ev_before" =~ ^0+$ ]]; then
			# The first push of a branch (or tag): compare with the default
			# branch; of the default branch itself: with nothing.
			local branch="${GITHUB_REF_NAME:-}"
			if [ -n "$ev_default_branch" ] && [ "$branch" != "$ev_default_branch" ]; then
				base "$ev_default_branch" ""
				notice "first push of $branch: compared with the default branch $ev_default_branch"
			else
				empty_baseline "first push of ${branch:-this branch}"
			fi
			return
		fi
		if ! has_commit "$ev_before"; then
			fetch --depth=1 origin "$ev_before" || missing "the commit before the push, $ev_before"
		fi
		against="git:$ev_before"
		;;
	"")
		previous
		;;
	*)
		# workflow_dispatch, schedule and the rest: a branch other than the
		# default one compares with the default branch, the default branch
		# with its previous commit.
		local branch="${GITHUB_REF_NAME:-}"
		if [ -n "$ev_default_branch" ] && [ -n "$branch" ] && [ "$branch" != "$ev_default_branch" ] && [ "${GITHUB_REF_TYPE:-branch}" = branch ]; then
			base "$ev_default_branch" ""
		else
			previous
		fi
		;;
	esac
}

# files_writable: the GitHub files the step writes can be written (a
# step that cannot record its result must still fail as one error).
files_writable() {
	local v
	for v in GITHUB_OUTPUT GITHUB_STEP_SUMMARY; do
		if [ -n "${!v:-}" ] && ! { : >>"${!v}"; } 2>/dev/null; then
			fail "cannot write $v (${!v}): the runner's file for the step is missing or read-only"
		fi
	done
}

# ensure_bin sets bin (CHARTER_BIN, or charter built into $home) and
# helper.
ensure_bin() {
	if [ -n "${CHARTER_BIN:-}" ]; then
		bin="$CHARTER_BIN"
		[ -x "$bin" ] || fail "CHARTER_BIN $bin is not an executable"
		build_helper
		return
	fi
	if [ -z "${CHARTER_VERSION:-}" ] || [ -z "${CHARTER_COMMIT:-}" ]; then
		identify
	else
		version="$CHARTER_VERSION" commit="$CHARTER_COMMIT"
	fi
	build
}

# relabel copies its input, naming an empty baseline by its label
# instead of the run's temporary directory.
against_label=""
relabel() {
	if [ -z "$against_label" ]; then
		cat
		return
	fi
	awk -v from="$against" -v to="$against_label" '{
		out = ""
		while ((i = index($0, from)) > 0) { out = out substr($0, 1, i - 1) to; $0 = substr($0, i + length(from)) }
		print out $0
	}'
}

check() {
	local line
	line="$(mktemp -d "$tmp_root/charter-run.XXXXXX" 2>&1)" || fail "cannot make a temporary directory in $tmp_root (RUNNER_TEMP or TMPDIR)" "$line"
	work="$line"
	case "${CHARTER_COMMENT:-false}" in true | false) ;; *) fail "invalid comment input \"$CHARTER_COMMENT\": want true or false" ;; esac
	ensure_bin
	line="$("$bin" version 2>&1)" || fail "$bin does not run" "$line"
	echo "$line"
	line="${line#charter }"
	output version "${line%% *}"
	if [ -n "${GITHUB_PATH:-}" ]; then
		(cd "$(dirname "$bin")" && pwd) >>"$GITHUB_PATH"
	fi

	cd "${GITHUB_WORKSPACE:-.}" || fail "cannot enter GITHUB_WORKSPACE $GITHUB_WORKSPACE"
	dir="${CHARTER_DIR:-.}"
	[ -d "$dir" ] || fail "working-directory $dir does not exist in $(pwd)"
	read_event
	against=""
	baseline
	if [ -z "$against" ]; then
		notice "the push deleted ${GITHUB_REF_NAME:-the branch}: nothing to check"
		summary "### $title skipped"$'\n\n'"The push deleted ${GITHUB_REF_NAME:-the branch}; there is nothing to check."
		output result skipped
		exit 0
	fi
	output against "${against_label:-$against}"
	echo "Baseline: ${against_label:-$against}"

	# The SARIF report: the sarif-file input, else $RUNNER_TEMP/charter.sarif
	# on a runner, else a directory of its own for this run (kept).
	local sarif="${CHARTER_SARIF_FILE:-}"
	if [ -z "$sarif" ] && [ -n "${RUNNER_TEMP:-}" ]; then
		sarif="$RUNNER_TEMP/charter.sarif"
	elif [ -z "$sarif" ]; then
		sarif="$(mktemp -d "$tmp_root/charter-sarif.XXXXXX")/charter.sarif"
	fi
	case "$sarif" in /*) ;; *) sarif="$(pwd)/$sarif" ;; esac
	mkdir -p "$(dirname "$sarif")"
	echo "SARIF report: $sarif"
	local args=(check --format github --against "$against" -C "$dir" --fail-on "${CHARTER_FAIL_ON:-error}" --report-file "sarif=$sarif")
	if [ -n "${CHARTER_CONFIG:-}" ]; then args+=(--config "$CHARTER_CONFIG"); fi
	case "${CHARTER_EVIDENCE:-}" in
	"" | 0 | false) ;;
	true) args+=(--evidence) ;;
	*) args+=("--evidence=$CHARTER_EVIDENCE") ;;
	esac
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then args+=(--summary-file "$work/summary.md"); fi
	if [ -n "${GITHUB_OUTPUT:-}" ]; then args+=(--github-output "$GITHUB_OUTPUT"); fi
	if [ "${CHARTER_COMMENT:-false}" = true ]; then args+=(--report-file "markdown=$work/report.md"); fi

	# charter gets no GitHub token: it needs none.
	local rc=0
	{
		env -u CHARTER_GITHUB_TOKEN "$bin" "${args[@]}" 2>"$work/stderr" || rc=$?
		echo "$rc" >"$work/rc"
	} | relabel
	rc="$(cat "$work/rc")"
	relabel <"$work/stderr" >&2
	if [ -s "$work/summary.md" ]; then relabel <"$work/summary.md" >>"$GITHUB_STEP_SUMMARY"; fi
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
		local msg
		msg="$(head -n 1 "$work/stderr" | relabel)"
		fail "charter check could not run against ${against_label:-$against}: ${msg:-exit status $rc}" "$(tail -n +2 "$work/stderr" | relabel)"
	fi
	output sarif-file "$sarif"

	if [ "${CHARTER_COMMENT:-false}" = true ]; then
		relabel <"$work/report.md" >"$work/comment.md"
		comment
	fi
	exit "$rc"
}

# marker is the hidden line that identifies this gate's comment.
marker() { printf '%s' "<!-- charter-schema-check dir=${CHARTER_DIR:-.}${CHARTER_CONFIG:+ config=$CHARTER_CONFIG} -->"; }

# fail_comment MARKDOWN: with comment: true, the pull request's comment
# says that the check could not run (so no earlier verdict stays up), when
# the helper, a token and the pull request are known.
fail_comment() {
	if [ "$mode" != check ] || [ "${CHARTER_COMMENT:-}" != true ] || [ -z "${CHARTER_GITHUB_TOKEN:-}" ] ||
		[ -z "${helper:-}" ] || [ ! -x "$helper" ] || [ -z "$work" ] || [ ! -d "$work" ]; then
		return 0
	fi
	local n="$ev_pr_number" out
	if [ -z "$n" ] && [ -n "${GITHUB_EVENT_PATH:-}" ]; then
		n="$("$helper" event 2>/dev/null | sed -n 's/^pr_number=//p')"
	fi
	if [ -z "$n" ]; then return 0; fi
	printf '### ❌ %s could not run\n\n%s\n' "$title" "$1" >"$work/comment.md"
	if out="$("$helper" comment --body-file "$work/comment.md" --marker "$(marker)" 2>&1)"; then
		echo "Pull request comment: $out"
		output comment-url "${out#* }" 2>/dev/null
	else
		echo "::warning title=$title::$(escape_data "could not comment on pull request #$n: ${out#charter-action: }")"
	fi
}

# comment posts or updates the pull request's comment. Not being able to
# comment (a fork's read-only token, no pull-requests: write) is a
# warning: the gate's verdict stands.
comment() {
	if [ -z "$ev_pr_number" ]; then
		notice "comment: true: a ${GITHUB_EVENT_NAME:-local} event has no pull request to comment on"
		return
	fi
	local out
	if out="$("$helper" comment --body-file "$work/comment.md" --marker "$(marker)" 2>&1)"; then
		echo "Pull request comment: $out"
		output comment-url "${out#* }"
	else
		echo "::warning title=$title::$(escape_data "could not comment on pull request #$ev_pr_number: ${out#charter-action: }")"
		summary "⚠️ Could not comment on pull request #$ev_pr_number: ${out#charter-action: }"
	fi
}

files_writable
case "$mode" in
go) go_needed ;;
prepare) prepare ;;
build) ensure_bin ;;
check) check ;;
*) fail "entrypoint.sh: unknown mode \"$mode\": want go, prepare, build or check" ;;
esac
