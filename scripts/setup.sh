#!/usr/bin/env bash
# Installs what Tandem needs on Debian/Ubuntu, quickly when it is already there.
#   scripts/setup.sh build   build and run the app (make run)
#   scripts/setup.sh test    also the test tools (make test)
#   scripts/setup.sh dev     also the Wails CLI (make dev)
#   scripts/setup.sh package also the packaging tools and the Wails CLI (make package)
# Uses sudo only when not root. Every step checks before it installs.
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-build}
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo

build_pkgs=(build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev libx11-dev libxtst-dev libjpeg-dev
  gstreamer1.0-libav gstreamer1.0-plugins-bad adb ffmpeg fonts-noto-cjk git)
test_pkgs=(xvfb xauth x11-utils x11-xserver-utils imagemagick xterm xdotool xsel xclip chromium
  gcc-mingw-w64-x86-64 wine wine64)
package_pkgs=(dpkg-dev fakeroot desktop-file-utils nsis gcc-mingw-w64-x86-64 file)

pkgs=("${build_pkgs[@]}")
[ "$what" = test ] && pkgs+=("${test_pkgs[@]}")
[ "$what" = package ] && pkgs+=("${package_pkgs[@]}")
command -v node >/dev/null 2>&1 || pkgs+=(nodejs npm)

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

# go.mod pins the toolchain (its go line). Any Go from 1.21 on fetches that
# toolchain by itself through the module proxy (the Makefile exports
# GOTOOLCHAIN=auto, since some distributions default it to local); older
# ones cannot.
if ! command -v go >/dev/null 2>&1; then
  say "Go is not installed. Install Go 1.21 or newer from https://go.dev/dl/ and re-run."
  exit 1
fi
go_minor=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
if [ -z "$go_minor" ] || [ "$go_minor" -lt 21 ]; then
  say "Go $(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null || echo '(unknown)') cannot fetch the toolchain go.mod pins. Install Go 1.21 or newer and re-run."
  exit 1
fi

# golangci-lint (make lint, part of make test) compiles for minutes on a
# new machine, so it builds in the background while the system and npm
# packages install; the script waits for it at the end.
gobin=$(go env GOPATH)/bin
lint_version=2.15.0
lint_pid=""
lint_log=$(mktemp)
if [ "$what" = test ] && ! "$gobin/golangci-lint" version 2>/dev/null | grep -q "version $lint_version "; then
  say "Installing golangci-lint v$lint_version (in the background)"
  go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v$lint_version" >"$lint_log" 2>&1 &
  lint_pid=$!
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
  say "Not a Debian/Ubuntu system: install the equivalents of: ${pkgs[*]} (see README), then re-run."
else
  missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "Installing system packages: ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  say "Node.js $node_major is too old for the frontend build (Vite 8 needs 20.19+). Install Node 20 or newer and re-run."
  exit 1
fi

# The Wails CLI serves `make dev` and builds the Windows installer; the app
# and the tests are built with go build.
if [ "$what" = dev ] || [ "$what" = package ] && [ ! -x "$gobin/wails" ]; then
  say "Installing the Wails CLI v2.11.0"
  go install github.com/wailsapp/wails/v2/cmd/wails@v2.11.0
fi

# npm packages: reinstall only when the lock file changed since the last install.
stamp=frontend/node_modules/.tandem-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s frontend/package-lock.json "$stamp"; then
  say "Installing frontend packages"
  (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
  cp frontend/package-lock.json "$stamp"
fi

if [ -n "$lint_pid" ]; then
  if ! wait "$lint_pid"; then
    cat "$lint_log" >&2
    say "Installing golangci-lint failed (above)."
    exit 1
  fi
fi
rm -f "$lint_log"
