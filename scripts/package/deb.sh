#!/usr/bin/env bash
# Builds the Debian/Ubuntu package from the production binary:
#   /usr/bin/tandem, /usr/share/applications/tandem.desktop,
#   /usr/share/icons/hicolor/<size>/apps/tandem.png, /usr/share/doc/tandem/.
# dpkg's triggers (desktop-file-utils, hicolor-icon-theme) refresh the menu and
# the icon cache, so no maintainer scripts are needed.
#   scripts/package/deb.sh BINARY   -> dist/tandem_<version>_<arch>.deb
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:?usage: deb.sh path/to/tandem}
version=$(scripts/package/version.sh)
arch=$(dpkg --print-architecture)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

install -Dm755 "$bin" "$root/usr/bin/tandem"
install -Dm644 build/linux/tandem.desktop "$root/usr/share/applications/tandem.desktop"
for png in build/linux/icons/*.png; do
  size=$(basename "$png" .png)
  install -Dm644 "$png" "$root/usr/share/icons/hicolor/$size/apps/tandem.png"
done
install -Dm644 README.md "$root/usr/share/doc/tandem/README.md"
cat > "$root/usr/share/doc/tandem/copyright" <<'TXT'
Tandem
Copyright: The Tandem authors
TXT

mkdir -p "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CTRL
Package: tandem
Version: $version
Architecture: $arch
Section: utils
Priority: optional
Installed-Size: $size
Maintainer: The Tandem authors <tandem@users.noreply.github.com>
Depends: libgtk-3-0, libwebkit2gtk-4.1-0, gstreamer1.0-libav, gstreamer1.0-plugins-good, adb, libx11-6, libxtst6
Recommends: fonts-noto-cjk, ffmpeg
Description: AI agent that operates your phone or desktop while you watch
 Tandem lets an AI agent operate an Android phone over ADB, or this
 computer's desktop, while you watch a live mirror of the screen. You can
 pause it, take over, confirm risky steps or stop it at once. Any
 OpenAI-compatible vision-language model works, in the cloud or local.
 The interface speaks English and Simplified Chinese.
CTRL

mkdir -p dist
out="dist/tandem_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "$out"
