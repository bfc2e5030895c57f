#!/usr/bin/env bash
# make package-test: installs the built .deb the way a person's package
# manager would (apt resolves its Depends), validates the desktop entry,
# starts Tandem from that entry's Exec line under a private Xvfb and checks
# the capture shows the real UI and the window has its icon, removes the package and checks nothing is
# left; then checks the Windows .exe and installer are PE images.
# Needs root (or sudo). The capture is kept in test-artifacts/package-window.png.
set -euo pipefail
cd "$(dirname "$0")/../.."
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
version=$(scripts/package/version.sh)
deb=$(ls dist/tandem_"${version}"_*.deb)
say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
mkdir -p test-artifacts
check=$(mktemp -d)
trap 'rm -rf "$check"' EXIT
go build -o "$check/pkgcheck" ./scripts/package/pkgcheck

say "install $deb"
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "./$deb" >/dev/null
[ "$(dpkg-query -W -f='${Version}' tandem)" = "$version" ] || { echo "installed version is not $version"; exit 1; }
entry=/usr/share/applications/tandem.desktop
desktop-file-validate "$entry"
for f in /usr/bin/tandem /usr/share/icons/hicolor/256x256/apps/tandem.png /usr/share/icons/hicolor/16x16/apps/tandem.png; do
  [ -f "$f" ] || { echo "missing $f"; exit 1; }
done
icon=$(sed -n 's/^Icon=//p' "$entry")
[ -f "/usr/share/icons/hicolor/48x48/apps/$icon.png" ] || { echo "the entry's Icon=$icon has no 48x48 icon"; exit 1; }
/usr/bin/tandem version | grep -q "$version" || { echo "tandem version does not say $version"; exit 1; }

say "start Tandem from the entry's Exec line under Xvfb"
exec_line=$(sed -n 's/^Exec=//p' "$entry")
export TANDEM_CONFIG_DIR="$check/config" TANDEM_DATA_DIR="$check/data"
xvfb-run -a -s "-screen 0 1400x900x24 -noreset" bash -c '
  set -u
  '"$exec_line"' >"'"$check"'/app.log" 2>&1 &
  app=$!
  deadline=$((SECONDS + 60))
  ok=1
  while [ $SECONDS -lt $deadline ]; do
    kill -0 $app 2>/dev/null || { echo "tandem exited early"; cat "'"$check"'/app.log"; exit 1; }
    if import -window root "'"$check"'/shot.png" 2>/dev/null && "'"$check"'/pkgcheck" shot "'"$check"'/shot.png" >/dev/null 2>&1; then
      ok=0; break
    fi
    sleep 0.5 # polling the screen until the UI is drawn, up to the deadline
  done
  # The window carries its icon (what the task bar shows): _NET_WM_ICON is set.
  icon=1
  for id in $(xdotool search --name "^Tandem$" 2>/dev/null); do
    xprop -id "$id" _NET_WM_ICON 2>/dev/null | grep -q "_NET_WM_ICON(CARDINAL)" && icon=0
  done
  [ $icon = 0 ] || echo "the Tandem window has no _NET_WM_ICON"
  kill $app; wait $app 2>/dev/null
  [ $ok = 0 ] && [ $icon = 0 ]
' || { cp "$check/shot.png" test-artifacts/package-window.png 2>/dev/null; echo "the installed Tandem never drew its UI (test-artifacts/package-window.png)"; cat "$check/app.log"; exit 1; }
cp "$check/shot.png" test-artifacts/package-window.png
echo "window drawn: test-artifacts/package-window.png"

say "remove the package"
$SUDO apt-get remove -y -qq tandem >/dev/null
for f in /usr/bin/tandem "$entry" /usr/share/icons/hicolor/256x256/apps/tandem.png /usr/share/doc/tandem; do
  [ ! -e "$f" ] || { echo "left behind after removal: $f"; exit 1; }
done

say "check the Windows build and installer"
"$check/pkgcheck" pe "dist/tandem-$version-windows-amd64.exe" "dist/tandem-$version-windows-amd64-installer.exe"
file "dist/tandem-$version-windows-amd64-installer.exe" | grep -q "Nullsoft Installer" || { echo "the installer is not an NSIS installer"; exit 1; }

say "package-test: all passed"
