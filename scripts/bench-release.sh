#!/bin/bash
# bench-release.sh: BenchmarkRelease (scripts/benchrelease) between this
# tree's `tandem` and a previous release's, paired and alternated in the
# same minutes (issue 48).
#   OLD     the commit to compare with (default: the last tag, else 5bde43b,
#           the last build before the backend)
#   NEW     the binary to measure (default: build/bin/tandem, `make build`)
#   ROUNDS  rounds of the benchmark (default 7); each runs both binaries for
#           5 and 25 steps, without and with the run's video, and for a
#           whole 6-step task timed from start to end
# The old binary is built in a git worktree of its own under a temporary
# folder (the window's pages are not needed: `tandem run` never opens it).
set -euo pipefail
cd "$(dirname "$0")/.."
old=${OLD:-$(git describe --tags --abbrev=0 2>/dev/null || echo 5bde43b)}
new=${NEW:-build/bin/tandem}
rounds=${ROUNDS:-7}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/src" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/src" "$old" >/dev/null
mkdir -p "$tmp/src/frontend/dist"
[ -n "$(ls -A "$tmp/src/frontend/dist")" ] || echo '<!doctype html>' > "$tmp/src/frontend/dist/index.html"
echo "==> building $old ($(git log -1 --format=%h "$old"))"
(cd "$tmp/src" && go build -tags desktop,production,webkit2_41 -o "$tmp/tandem-old" .)
echo "==> BenchmarkRelease: $new against $old, $rounds rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
TANDEM_BIN=$(readlink -f "$new") TANDEM_OLD_BIN=$tmp/tandem-old \
  go test ./scripts/benchrelease -run '^$' -bench '^BenchmarkRelease$' -benchtime "${rounds}x" -timeout 60m -v
