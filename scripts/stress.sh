#!/usr/bin/env bash
# make stress: the timing-sensitive packages under -race, -count 5 and
# -cpu 1,2 while a CPU burner keeps every core busy. A test that passes here
# asserts a condition, not the machine's speed (see README, "Tests").
#   scripts/stress.sh                  the default packages below
#   STRESS_PKGS="./engine/..." scripts/stress.sh
#   STRESS_COUNT=2 scripts/stress.sh   fewer repetitions
set -euo pipefail
cd "$(dirname "$0")/.."

#   scripts/stress.sh --changed        only the Go packages the latest
#                                      session's commits touched (CI)
default_pkgs="./engine ./devices/... ./vphone/... ./mirror/... ./app/... ./cli"
pkgs=${STRESS_PKGS:-$default_pkgs}

if [ "${1:-}" = --changed ]; then
  # A session lasts at most a few hours: what its commits touched is what
  # changed since the newest commit made 6 hours before HEAD.
  since=$(date -u -d "$(git log -1 --format=%cI HEAD) - 6 hours" +%Y-%m-%dT%H:%M:%SZ)
  base=$(git rev-list -1 --before="$since" HEAD 2>/dev/null || true)
  [ -n "$base" ] || base=$(git rev-list --max-parents=0 HEAD | tail -n 1)
  pkgs=$(git diff --name-only "$base" HEAD -- '*.go' | xargs -r -n1 dirname | sort -u |
    while read -r d; do ls "$d"/*.go >/dev/null 2>&1 && echo "./$d"; done | tr '\n' ' ')
  if [ -z "$pkgs" ]; then
    echo "==> stress: no Go package changed since $(git log -1 --format='%h %cI' "$base")"
    exit 0
  fi
  echo "==> stress: the packages changed since $(git log -1 --format='%h %cI' "$base")"
fi
count=${STRESS_COUNT:-5}
tags=${TAGS:-webkit2_41}

# One burner per core at normal priority: the tests share every core with
# a job as greedy as another `make test` beside them (STRESS_NICE raises
# the burners' niceness for a gentler load).
burners=()
stop_burners() {
  for p in "${burners[@]}"; do kill "$p" 2>/dev/null || true; done
}
trap stop_burners EXIT INT TERM
for _ in $(seq "$(nproc)"); do
  nice -n "${STRESS_NICE:-0}" sh -c 'while :; do :; done' &
  burners+=($!)
done

echo "==> stress: -race -count $count -cpu 1,2 with $(nproc) burner(s): $pkgs"
start=$(date +%s)
# shellcheck disable=SC2086 # the package list is words on purpose
TANDEM_BIN=${TANDEM_BIN:-$PWD/build/bin/tandem} go test -race -tags "$tags" -count "$count" -cpu 1,2 -timeout 30m $pkgs
echo "==> stress: passed in $(( $(date +%s) - start )) s"
