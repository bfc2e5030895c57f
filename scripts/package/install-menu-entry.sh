#!/bin/sh
# Adds Tandem from this unpacked tarball to the person's application menu:
# the desktop entry goes to ~/.local/share/applications (Exec pointing at the
# launcher here) and the icons to ~/.local/share/icons/hicolor.
set -eu
here=$(dirname "$(readlink -f "$0")")
data=${XDG_DATA_HOME:-$HOME/.local/share}
mkdir -p "$data/applications"
cp -r "$here/share/icons" "$data/"
sed "s|^Exec=tandem$|Exec=\"$here/tandem\"|" "$here/share/applications/tandem.desktop" > "$data/applications/tandem.desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$data/applications" || true
command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$data/icons/hicolor" || true
echo "Tandem is in your menu. To remove it: rm $data/applications/tandem.desktop"
