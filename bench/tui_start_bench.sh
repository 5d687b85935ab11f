#!/usr/bin/env bash
# bench/tui_start_bench.sh [BIN] DIR [RUNS]: time from start to the TUI's first frame, to the cached graph being shown (warm starts
# with nothing changed: "graph", the worker's time), to the first frame drawn with a
# snapshot ("drawn", from main), and to the first finished index or full cached snapshot
# ("ready"), for the real binary in a real terminal (tmux, 120x40), RUNS times on DIR.
# BIN defaults to $CARGO_TARGET_DIR/release/codegraph-tui (target/ when unset, relative to the
# current directory: run it from the checkout).
# The numbers come from the TUI's own log (`first frame since_start_ms`, `indexing done ms`),
# written to a private XDG_STATE_HOME. All runs share one fresh index cache
# (XDG_CACHE_HOME), so run 1 is a cold start (walk, parse, resolve, save) and later runs
# are warm starts ("ready" is then the cached snapshot being served; the reconciliation
# with the disk follows in the background). Prints one JSON line per run.
set -euo pipefail
if [ $# -ge 2 ]; then BIN=$1; shift; else BIN=${CARGO_TARGET_DIR:-target}/release/codegraph-tui; fi
DIR=$(cd "$1" && pwd)
RUNS=${2:-3}
cache=$(mktemp -d)
sock=""
# Whatever stops the script, the run in flight does not outlive it (a TUI left behind
# keeps watching and indexing beside every later measurement).
trap '[ -n "$sock" ] && tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$cache"' EXIT
for run in $(seq 1 "$RUNS"); do
  state=$(mktemp -d)
  sock="cgstart-$$-$run"
  tmux -L "$sock" new-session -d -x 120 -y 40 \
    "echo \$\$ > $state/pid; exec env XDG_STATE_HOME=$state XDG_CACHE_HOME=$cache CODEGRAPH_CONFIG=/nonexistent/cg.toml TERM=xterm-256color '$BIN' '$DIR'"
  log() { cat "$state"/codegraph-tui/logs/* "$state"/*/logs/* 2>/dev/null || true; }
  for _ in $(seq 1 6000); do
    if log | grep -qE "indexing done|cached snapshot served"; then break; fi
    sleep 0.1
  done
  first=$(log | grep "first frame" | sed -E 's/.*since_start_ms=([0-9]+).*/\1/' | head -1)
  ready=$(log | grep -E "indexing done|cached snapshot served" | sed -E 's/.* ms=([0-9]+).*/\1/' | head -1)
  graph=$( (log | grep "cached graph served" || true) | sed -E 's/.* ms=([0-9]+).*/\1/' | head -1)
  kind=$(log | grep -q "cached snapshot served" && echo warm || echo cold)
  # From main to the first frame drawn with a snapshot (the graph alone on a warm start).
  for _ in $(seq 1 50); do
    if log | grep -q "first snapshot drawn"; then break; fi
    sleep 0.1
  done
  drawn=$( (log | grep "first snapshot drawn" || true) | sed -E 's/.*since_start_ms=([0-9]+).*/\1/' | head -1)
  # A cold start saves its snapshot after showing it: let that finish for the next run.
  if [ "$kind" = cold ]; then
    for _ in $(seq 1 600); do
      if log | grep -q "cache saved"; then break; fi
      sleep 0.1
    done
  fi
  pid=$(cat "$state/pid" 2>/dev/null || true)
  tmux -L "$sock" kill-server 2>/dev/null || true
  # The next run starts once this one has exited (its worker may still be busy), so it
  # never shares the cores with it.
  for _ in $(seq 1 600); do
    if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  rm -rf "$state"
  echo "{\"run\": $run, \"dir\": \"$DIR\", \"first_frame_ms\": ${first:-null}, \"start\": \"$kind\", \"graph_ready_ms\": ${graph:-null}, \"drawn_ms\": ${drawn:-null}, \"index_ready_ms\": ${ready:-null}}"
done
