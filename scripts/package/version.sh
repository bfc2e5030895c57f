#!/usr/bin/env bash
# Prints Tandem's version from its one source, internal/version/version.go,
# so the .deb, the tarball and the Windows installer carry the same version
# as `tandem version` and the About box.
set -euo pipefail
cd "$(dirname "$0")/../.."
v=$(sed -n 's/^var Version = "\(.*\)"$/\1/p' internal/version/version.go)
[ -n "$v" ] || { echo "version.sh: no 'var Version = \"...\"' in internal/version/version.go" >&2; exit 1; }
echo "$v"
