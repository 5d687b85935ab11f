#!/usr/bin/env bash
# Time from start to the TUI's first frame, and to the first finished index ("ready"),
# for the real binary in a real terminal (tmux, 120x40), RUNS times on DIR.
# Usage: tests/tui_start_bench.sh [BIN] DIR [RUNS]   (BIN defaults to target/release/codegraph-tui)
# The numbers come from the TUI's own log (`first frame since_start_ms`, `indexing done ms`),
# written to a private XDG_STATE_HOME. Run 1 starts with whatever the OS page cache holds;
# later runs read the tree from a warm page cache. Prints one JSON line per run.
set -euo pipefail
if [ $# -ge 2 ]; then BIN=$1; shift; else BIN=${CARGO_TARGET_DIR:-target}/release/codegraph-tui; fi
DIR=$(cd "$1" && pwd)
RUNS=${2:-3}
for run in $(seq 1 "$RUNS"); do
  state=$(mktemp -d)
  sock="cgstart-$$-$run"
  tmux -L "$sock" new-session -d -x 120 -y 40 \
    "env XDG_STATE_HOME=$state CODEGRAPH_CONFIG=/nonexistent/cg.toml TERM=xterm-256color '$BIN' '$DIR'"
  log() { cat "$state"/codegraph-tui/logs/* "$state"/*/logs/* 2>/dev/null || true; }
  for _ in $(seq 1 6000); do
    if log | grep -q "indexing done"; then break; fi
    sleep 0.1
  done
  first=$(log | grep "first frame" | sed -E 's/.*since_start_ms=([0-9]+).*/\1/' | head -1)
  ready=$(log | grep "indexing done" | sed -E 's/.* ms=([0-9]+).*/\1/' | head -1)
  tmux -L "$sock" kill-server 2>/dev/null || true
  rm -rf "$state"
  echo "{\"run\": $run, \"dir\": \"$DIR\", \"first_frame_ms\": ${first:-null}, \"index_ready_ms\": ${ready:-null}}"
done
