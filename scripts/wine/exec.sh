#!/usr/bin/env bash
# go test -exec wrapper: runs one Windows test binary under Wine, killed if it
# outlives WINE_TEST_TIMEOUT (so a stuck Wine never hangs `make test`).
exec timeout -k 5 "${WINE_TEST_TIMEOUT:-240}" wine "$@"
