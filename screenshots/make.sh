#!/usr/bin/env bash
# Regenerates the screenshots in this folder from the real TUI running on this
# repository's own code, in a 110x32 tmux pane. Needs tmux and python3.
# Usage: screenshots/make.sh   (from anywhere; builds the binary first)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet
bin="${CARGO_TARGET_DIR:-target}/debug/codegraph-tui"
W=110 H=32
session="cg-shots-$$"
trap 'tmux kill-session -t "$session" 2>/dev/null || true' EXIT

shot() { # name [light]
  sleep 0.6
  tmux capture-pane -e -p -t "$session" | python3 screenshots/ansi2svg.py "$W" "$H" ${2:-} > "screenshots/$1.svg"
  echo "wrote screenshots/$1.svg"
}
wait_for() { # text
  for _ in $(seq 1 600); do
    tmux capture-pane -p -t "$session" | grep -qF -- "$1" && return 0
    sleep 0.2
  done
  echo "timed out waiting for: $1" >&2; exit 1
}
start() { # theme
  tmux kill-session -t "$session" 2>/dev/null || true
  tmux new-session -d -s "$session" -x "$W" -y "$H" \
    env TERM=xterm-256color COLORTERM=truecolor CODEGRAPH_THEME="$1" \
    CODEGRAPH_CONFIG=/nonexistent/cg.toml "$bin" "$PWD"
  wait_for "ready"
}

start dark
tmux send-keys -t "$session" -l "CodeGraph::walk"
wait_for "> CodeGraph::walk"
shot search
tmux send-keys -t "$session" Enter
wait_for "Callers of"
tmux send-keys -t "$session" Down l
shot callers
tmux send-keys -t "$session" h g "*"
wait_for "expanded"
shot expand
tmux send-keys -t "$session" c
wait_for "Callees of"
shot callees
tmux send-keys -t "$session" o
wait_for "Outline of"
shot outline
tmux send-keys -t "$session" o D
wait_for "Dead-code candidates"
shot dead
tmux send-keys -t "$session" D
tmux send-keys -t "$session" "?"
wait_for "Keys (Esc closes"
shot help
start light
tmux send-keys -t "$session" -l "index_repo"
wait_for "> index_repo"
tmux send-keys -t "$session" Enter
wait_for "Callers of"
shot light light
