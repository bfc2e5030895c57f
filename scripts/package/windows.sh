#!/usr/bin/env bash
# Cross-compiles Tandem for Windows (amd64) on Debian/Ubuntu with mingw-w64 and
# builds the NSIS installer through Wails' own Windows packaging; the installer
# fetches the WebView2 runtime with Microsoft's bootstrapper when missing, as
# Wails' installer template does. cgo stays on (CC is mingw) so drivers that use
# cgo (robotgo, screenshot) build the same way.
#   scripts/package/windows.sh COMMIT   -> dist/tandem-<version>-windows-amd64.exe
#                                          dist/tandem-<version>-windows-amd64-installer.exe
set -euo pipefail
cd "$(dirname "$0")/../.."
commit=${1:-unknown}
version=$(scripts/package/version.sh)
wails=${WAILS:-$(go env GOPATH)/bin/wails}
command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "windows.sh: x86_64-w64-mingw32-gcc missing (apt-get install gcc-mingw-w64-x86-64)" >&2; exit 1; }
command -v makensis >/dev/null || { echo "windows.sh: makensis missing (apt-get install nsis)" >&2; exit 1; }

# wails.json's productVersion feeds the installer and the .exe's version
# resource; keep it equal to internal/version.
sed -i "s/\"productVersion\": \"[^\"]*\"/\"productVersion\": \"$version\"/" wails.json

# -s: the frontend is already built by make (frontend/dist). No display: wails
# runs the app once (built with the "bindings" tag) to write the bindings, and
# CI builds on a machine without one; unsetting it here makes every build
# prove that step needs none.
env -u DISPLAY -u WAYLAND_DISPLAY CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc CXX=x86_64-w64-mingw32-g++ \
  "$wails" build -s -platform windows/amd64 -nsis -trimpath \
  -ldflags "-X tandem/internal/version.commit=$commit" -o tandem.exe

mkdir -p dist
cp build/bin/tandem.exe "dist/tandem-$version-windows-amd64.exe"
cp build/bin/tandem-amd64-installer.exe "dist/tandem-$version-windows-amd64-installer.exe"
echo "dist/tandem-$version-windows-amd64.exe"
echo "dist/tandem-$version-windows-amd64-installer.exe"
