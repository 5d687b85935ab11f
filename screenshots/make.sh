#!/usr/bin/env bash
# Regenerates the screenshots in this folder from the real TUI running on this
# repository's own code, in a 110x32 tmux pane. Needs tmux, git and python3.
#
# Usage: screenshots/make.sh            (from anywhere; builds the debug binary first)
#        CODEGRAPH_BIN=path/to/codegraph-tui screenshots/make.sh   (a binary already built)
#
# The TUI runs on a fresh clone of the committed tree (HEAD) with private cache, data and
# config folders, so the pictures show what a user of this commit sees and nothing of the
# machine they were made on (no local paths, no untracked files, no user config).
set -euo pipefail
cd "$(dirname "$0")/.."
out="$PWD/screenshots"
if [ -n "${CODEGRAPH_BIN:-}" ]; then
  bin=$(cd "$(dirname "$CODEGRAPH_BIN")" && pwd)/$(basename "$CODEGRAPH_BIN")
else
  cargo build --quiet
  bin="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/debug/codegraph-tui"
fi
W=110 H=32
session="cg-shots-$$"
work=$(mktemp -d)
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT
git clone --quiet "$PWD" "$work/codegraph-tui"
repo="$work/codegraph-tui"

shot() { # name [light]
  sleep 0.6
  tmux capture-pane -e -p -t "$session" | python3 "$out/ansi2svg.py" "$W" "$H" ${2:-} > "$out/$1.svg"
  echo "wrote screenshots/$1.svg"
}
wait_for() { # text
  for _ in $(seq 1 600); do
    tmux capture-pane -p -t "$session" | grep -qF -- "$1" && return 0
    sleep 0.2
  done
  echo "timed out waiting for: $1" >&2
  tmux capture-pane -p -t "$session" >&2
  exit 1
}
keys() { tmux send-keys -t "$session" "$@"; }
search() { # query: a fresh symbol search, Enter on its first match
  keys / C-u
  keys -l "$1"
  wait_for "> $1"
  keys Enter
}
start() { # theme
  tmux kill-session -t "$session" 2>/dev/null || true
  tmux new-session -d -s "$session" -x "$W" -y "$H" \
    env TERM=xterm-256color COLORTERM=truecolor CODEGRAPH_THEME="$1" \
    XDG_CACHE_HOME="$work/cache" XDG_DATA_HOME="$work/data" XDG_CONFIG_HOME="$work/config" \
    HOME="$work" CODEGRAPH_CONFIG=/nonexistent/cg.toml "$bin" "$repo"
  wait_for "ready"
}

start dark
keys -l "CodeGraph::walk"
wait_for "> CodeGraph::walk"
shot search
keys Enter
wait_for "Callers of"
# The first row below the root is its unresolved-calls summary when it has one: the
# picture opens the first caller instead.
keys Down
sleep 0.3
if tmux capture-pane -p -t "$session" | grep -q "^┃  ▸ ? [0-9,]* unresolved"; then keys Down; fi
keys l
shot callers
keys h g "*"
wait_for "expanded"
shot expand
keys c
wait_for "Callees of"
shot callees
keys o
wait_for "Outline of"
shot outline
keys o
# A trait with two implementations: the hierarchy lists them with the methods they define.
search "LineSource"
wait_for "Callers of LineSource"
keys i
wait_for "Type hierarchy of"
shot hierarchy
keys i
# A function passed as a value (`.map_err(part_error)`) and imported by name elsewhere.
search "format::part_error"
wait_for "Callers of part_error"
keys R
wait_for "References to"
shot references
keys R
# Go to definition: the source panel's cursor on a call (`now_ns()`, three lines into
# `index_repo`), Enter jumps to its definition.
search "index_repo"
wait_for "Callers of index_repo"
keys Tab
keys j j j w w
shot goto
keys Enter
wait_for "now_ns"
keys D
wait_for "Dead-code candidates"
shot dead
keys D
keys "?"
wait_for "Keys (Esc closes"
shot help
start light
keys -l "index_repo"
wait_for "> index_repo"
keys Enter
wait_for "Callers of"
shot light light
