#!/usr/bin/env bash
# Runs every fuzz target of DebtQL, one at a time, for a given duration each,
# and prints a table of the results. See docs/fuzzing.md.
#
#   scripts/fuzz-all.sh                 # every target, 60s each
#   scripts/fuzz-all.sh 5m              # every target, 5 minutes each
#   scripts/fuzz-all.sh 30s 'Money|Rate' # only the targets matching a regexp
#
# Environment: FUZZ_PARALLEL (default 2) is go test's -parallel, the number of
# fuzzing workers; FUZZ_MINIMIZE_TIME (default 10s) is -fuzzminimizetime: Go
# spends up to 60s by default minimizing every new interesting input, which
# in a one-minute run leaves the workers idle for most of it; FUZZ_LOG_DIR
# (default a new temporary directory) keeps each target's output.
#
# A failing input is written by go test to testdata/fuzz/<Target>/ in the
# target's package: commit it, so that `go test ./...` replays it. A run that
# ends with "context deadline exceeded" and writes no input is Go's own
# coordinator race at the end of -fuzztime (go.dev/issue/75804, fixed in Go
# 1.27), not a finding; it is reported as "flake".
#
# Every go test this script starts runs in its own process group, which is
# stopped on Ctrl-C, SIGTERM and exit.
set -u -o pipefail

duration=${1:-60s}
filter=${2:-.}
parallel=${FUZZ_PARALLEL:-2}
minimize=${FUZZ_MINIMIZE_TIME:-10s}
packages=(./internal/scalar ./internal/collection ./internal/server)

cd "$(dirname "$0")/.." || exit 1
log_dir=${FUZZ_LOG_DIR:-$(mktemp -d -t debtql-fuzz.XXXXXX)}
mkdir -p "$log_dir"

# -timeout must outlast -fuzztime (go test's default is 10m).
case $duration in
*x) timeout=0 ;;
*s) timeout=$((${duration%s} + 300))s ;;
*m) timeout=$((${duration%m} * 60 + 300))s ;;
*h) timeout=$((${duration%h} * 3600 + 300))s ;;
*) echo "duration must be like 60s, 5m, 1h or 100000x: $duration" >&2; exit 2 ;;
esac

set -m # each background job gets its own process group
current=
stop_current() {
	if [[ -n $current ]]; then
		kill -TERM -- "-$current" 2>/dev/null
		wait "$current" 2>/dev/null
		current=
	fi
}
trap 'stop_current; exit 130' INT TERM
trap stop_current EXIT

failed=0
rows=()
for pkg in "${packages[@]}"; do
	targets=$(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' | grep -E -- "$filter") || continue
	for target in $targets; do
		log="$log_dir/$target.log"
		corpus="$pkg/testdata/fuzz/$target"
		before=$(ls "$corpus" 2>/dev/null | sort)
		echo "== $pkg $target ($duration, -parallel $parallel; log $log)"
		go test "$pkg" -run '^$' -fuzz "^$target\$" -fuzztime "$duration" -parallel "$parallel" \
			-fuzzminimizetime "$minimize" -timeout "$timeout" >"$log" 2>&1 &
		current=$!
		wait "$current"
		status=$?
		current=
		after=$(ls "$corpus" 2>/dev/null | sort)
		added=$(comm -13 <(echo "$before") <(echo "$after") | sed '/^$/d')
		last=$(grep -E '^fuzz: elapsed: .*execs: ' "$log" | tail -1)
		execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
		interesting=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
		if [[ -n $added ]]; then
			result="FAIL: $(echo $added | sed "s|^|$corpus/|")"
			failed=1
		elif [[ $status -ne 0 ]] && grep -q 'context deadline exceeded' "$log" && ! grep -q -- '--- FAIL: .*/' "$log"; then
			result="flake (context deadline exceeded, no input written)"
		elif [[ $status -ne 0 ]]; then
			result="FAIL: exit $status, see $log"
			failed=1
		else
			result="none"
		fi
		tail -3 "$log"
		rows+=("| $target | ${execs:-?} | ${interesting:-?} | $result |")
	done
done

echo
echo "| Target | Executions | New interesting | Findings |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
exit $failed
