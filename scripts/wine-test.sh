#!/usr/bin/env bash
# Runs the Windows desktop driver's tests, and `tandem run --device desktop:0`,
# as Windows programs under Wine on a private Xvfb display (`make wine-test`).
# The Wine prefix is made once and kept in build/wine (delete it to remake).
# Facts this relies on: /work/shared/notes/build.md "Windows code under Wine".
set -euo pipefail
cd "$(dirname "$0")/.."

for t in wine wineserver wineboot x86_64-w64-mingw32-gcc Xvfb; do
  command -v "$t" >/dev/null || { echo "wine-test: $t is missing (scripts/setup.sh test installs it)"; exit 1; }
done

root=$PWD/build/wine
export WINEPREFIX=$root/prefix WINEARCH=win64 WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$root"

xpid=""
cleanup() {
  wineserver -k >/dev/null 2>&1 || true
  [ -n "$xpid" ] && kill "$xpid" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

# A private display: Wine's windows, the pointer and the captures are ours.
fifo=$root/displayfd
rm -f "$fifo"; mkfifo "$fifo"
Xvfb -displayfd 5 -screen 0 1280x800x24 -nolisten tcp -noreset 5>"$fifo" >/dev/null 2>&1 &
xpid=$!
read -r -t 20 num <"$fifo" || { echo "wine-test: Xvfb did not start"; exit 1; }
rm -f "$fifo"
export DISPLAY=:$num

# Wine's services inherit the first wine process's output: start them with
# theirs on /dev/null, or a piped `go test -exec wine` waits for them forever.
timeout 60 wineserver -p </dev/null >/dev/null 2>&1 || true
if [ ! -f "$WINEPREFIX/.tandem-ready" ]; then
  echo "wine-test: making the Wine prefix in $WINEPREFIX (once)"
fi
timeout 120 wineboot -i </dev/null >/dev/null 2>&1
touch "$WINEPREFIX/.tandem-ready"

# No window manager runs on this display, so Wine's windows are unmanaged:
# a managed window's unmap waits up to 2 s for a window manager's WM_STATE
# that never comes (wine-mirror/wine, dlls/winex11.drv/window.c,
# wait_for_withdrawn_state), which every test window's close paid (37 s of
# the Windows driver's tests; 1 s without).
if [ ! -f "$WINEPREFIX/.tandem-unmanaged" ]; then
  timeout 60 wine reg add 'HKCU\Software\Wine\X11 Driver' /v Managed /t REG_SZ /d N /f </dev/null >/dev/null 2>&1
  touch "$WINEPREFIX/.tandem-unmanaged"
fi

# Go 1.22+ programs need bcryptprimitives.dll!ProcessPrng (absent in Wine 8).
dll=$root/bcryptprimitives.dll
if [ ! -f "$dll" ] || [ scripts/wine/processprng.c -nt "$dll" ]; then
  x86_64-w64-mingw32-gcc -O2 -shared -o "$dll" scripts/wine/processprng.c -lbcrypt
fi
cmp -s "$dll" "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" ||
  cp "$dll" "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"

export GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc
go test -exec "$PWD/scripts/wine/exec.sh" -count=1 -timeout 4m "$@" \
  ./devices/desktop/win/ ./devices/desktop/host/ ./notify/
go test -exec "$PWD/scripts/wine/exec.sh" -count=1 -timeout 4m -run 'Desktop' "$@" ./cli/
go test -exec "$PWD/scripts/wine/exec.sh" -count=1 -timeout 2m -run 'TestOneDriverPerDevice' "$@" ./devices/
echo "wine-test: passed"
