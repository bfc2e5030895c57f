#!/usr/bin/env bash
# Builds the portable Linux tarball for distributions without dpkg:
#   tandem-<version>-linux-<arch>/
#     tandem                  launcher: checks the shared libraries, then starts the app
#     install-menu-entry.sh   adds Tandem to the person's menu (~/.local/share)
#     lib/tandem              the binary
#     share/applications, share/icons   desktop entry and icons
#   scripts/package/tarball.sh BINARY   -> dist/tandem-<version>-linux-<arch>.tar.gz
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:?usage: tarball.sh path/to/tandem}
version=$(scripts/package/version.sh)
arch=$(go env GOARCH)
name="tandem-$version-linux-$arch"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
top="$stage/$name"

install -Dm755 "$bin" "$top/lib/tandem"
install -Dm644 build/linux/tandem.desktop "$top/share/applications/tandem.desktop"
for png in build/linux/icons/*.png; do
  size=$(basename "$png" .png)
  install -Dm644 "$png" "$top/share/icons/hicolor/$size/apps/tandem.png"
done
install -Dm755 scripts/package/launcher.sh "$top/tandem"
install -Dm755 scripts/package/install-menu-entry.sh "$top/install-menu-entry.sh"
install -Dm644 README.md "$top/README.md"

mkdir -p dist
out="dist/$name.tar.gz"
tar -C "$stage" --owner=0 --group=0 -czf "$out" "$name"
echo "$out"
