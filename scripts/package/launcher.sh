#!/bin/sh
# Tandem's launcher in the portable tarball: says which system libraries are
# missing (by name, for any distribution) instead of failing with a loader
# error, then starts the app with all arguments.
here=$(dirname "$(readlink -f "$0")")
missing=""
for lib in libwebkit2gtk-4.1.so.0 libgtk-3.so.0 libXtst.so.6; do
  if command -v ldconfig >/dev/null 2>&1 && ! ldconfig -p 2>/dev/null | grep -q "$lib"; then
    missing="$missing $lib"
  fi
done
if [ -n "$missing" ]; then
  echo "tandem: missing system libraries:$missing" >&2
  echo "tandem: install WebKitGTK 4.1, GTK 3 and libXtst from your distribution (e.g. webkit2gtk4.1 on Fedora, webkit2gtk-4.1 on Arch)." >&2
  exit 1
fi
command -v adb >/dev/null 2>&1 || echo "tandem: adb not found; install Android platform-tools to use a phone." >&2
exec "$here/lib/tandem" "$@"
