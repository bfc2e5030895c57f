#!/usr/bin/env bash
# The noise table of docs/eval.md: the oracle through Tandem's normal runs
# on one task of each template (seed 1), with the virtual phones' faults and
# the oracle's own mistakes (rows), with every feature of Tandem on and
# without each in turn (columns). Usage: scripts/eval-noise.sh [TANDEM_BIN]
# Prints a Markdown table: tasks done out of tasks run.
set -euo pipefail
bin=${1:-build/bin/tandem}
port=${EVAL_ADB_PORT:-5139}
tasks=${EVAL_TASKS:-*_1}
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
rows=("none:" "drop 10%:--faults drop=0.1" "pop-up 30%:--faults popup=0.3" "slow 600 ms:--faults slow=600ms"
  "shift 300 ms:--faults shift=300ms" "mistap 10%:--oracle-noise mistap=0.1" "malformed 10%:--oracle-noise malformed=0.1"
  "early done 5%:--oracle-noise early=0.05"
  "all of them:--faults drop=0.1,popup=0.3,slow=600ms,shift=300ms --oracle-noise mistap=0.1,malformed=0.1,early=0.05")
cols=("" "typing-check" "stability" "loop-detection" "parse-retry")
printf '| fault or mistake | all on | no typed-text check | no stability wait | no loop detection | no parse retry |\n'
printf '|---|---|---|---|---|---|\n'
for row in "${rows[@]}"; do
  name=${row%%:*}
  args=${row#*:}
  line="| $name |"
  for col in "${cols[@]}"; do
    without=()
    [ -n "$col" ] && without=(--without "$col")
    # shellcheck disable=SC2086
    sum=$(TANDEM_DATA_DIR=$data "$bin" eval --oracle --json --seed 1 --adb-port "$port" --tasks "$tasks" $args "${without[@]}" | tail -1)
    line="$line $(python3 -c 'import json,sys; s=json.loads(sys.argv[1])["summary"]; print("%d/%d" % (s["success"], s["tasks"]))' "$sum") |"
  done
  echo "$line"
done
