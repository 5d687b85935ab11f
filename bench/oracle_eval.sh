#!/usr/bin/env bash
# bench/oracle_eval.sh [BINARY] [FILTER...]: call-edge accuracy of codegraph-tui against
# compiler-grade oracles, one command.
#
#     BINARY   default <project>/target/release/codegraph-tui (cargo build --release first)
#     FILTER   a language (python ts js go java rust) or a key (python-flask, go-go-git, ...);
#              default: every evaluation repo
#   env: CG_EVAL_HOME   oracle toolchains + caches (default ~/.cache/codegraph-eval)
#        CG_CORPUS      corpus from ../shared/corpus/fetch.sh (default ~/.cache/codegraph-corpus)
#        CG_SHARED      the shared/ directory (default ../shared next to the project root)
#        ORACLE_REFRESH=1   re-run the oracles even when their output is cached
#        ORACLE_JOBS=N      jedi worker processes (default 2)
#        EVAL_ERRORS=N      also write N wrong edges + N missed gold sites per repo (score.py --show-errors)
#        CG_RUST_CARGO_HOME the CARGO_HOME rust-analyzer resolves a crate's dependencies from
#                           (default $CG_CORPUS/rust, the corpus registry)
# Prerequisites: ../shared/oracles/setup.sh python node go java; ../shared/corpus/fetch.sh;
# for Rust `rustup component add rust-analyzer rust-src` and tree-sitter-rust in the venv.
#
# For each evaluation repo it (1) reuses the cached oracle output
# $CG_EVAL_HOME/oracle-out/<lang>-<repo>.jsonl, running the oracle only when it is missing,
# (2) runs `codegraph-tui -C REPO --no-cache graph --json | graph2edges.py`, (3) scores those
# edges with score.py --json ("P (line)": a site is file:line, so an edge is judged against every
# call on its line), then the same edges with their column ("P (col)", recall and all the rest:
# the edge is judged against the exact call), overall and per resolution tier, and prints
# Markdown tables (paste into README.md). Edges and scores stay in $CG_EVAL_HOME/eval-out/
# (<key>.edges.jsonl, <key>.edges-col.jsonl, <key>.score*.json, <key>.tier-*.jsonl).
#
# Cost (measured on 2 busy cores): warm oracle caches ~25 s for everything (codegraph runs
# ~5 s, the rest is score.py). Cold caches: jedi 30 s-2 min per Python sdist (~4 min for the
# four), ts_oracle ~10 s per repo, go_oracle ~12 s per repo, javac ~20 s, rust-analyzer scip
# 5-50 s per crate (about 3 min and 1.5 GB of memory for the five; run it one crate at a
# time). Disk: ~20 MB, plus the Rust crates' scratch copies (below).
#
# Repos (paths under $CG_CORPUS):
#   python  requests, flask, click, attrs: whole sdist dirs (src/ + tests/ + docs/examples),
#           jedi gets <sdist>/src on its sys.path so tests resolve into the package;
#           python-flask-pkg opens flask's package folder src/flask itself as the root (a
#           user running the tool inside a package: `from flask.x import y` names the root's
#           own x.py), jedi gets its parent on the sys.path (the 4th field: the sys.path
#           entry relative to the root, default src)
#   ts      @tanstack/query-core src/, rxjs src/, @trpc/server src/ (relative imports; no
#           tsconfig needed)
#   js      express (whole package; its deps are absent so most calls are unjudged),
#           lodash (whole package, *.min.js excluded from the oracle), svelte src/ (typed by
#           JSDoc, which the TypeScript compiler reads in .js files)
#   go      go-git (GOPATH import path github.com/go-git/go-git/v5, via a symlink under
#           $CG_EVAL_HOME/gopath), golang.org/x/tools/go (the go/ subtree only) and gin
#           (github.com/gin-gonic/gin; its third-party imports are absent, so calls into them
#           stay unjudged); go-go-git-plumbing opens go-git's plumbing/ folder, below its
#           go.mod, as the root (the rest of the module is outside the tree)
#   java    src/main/java of commons-lang3, jsoup and jackson-databind (jackson-core and
#           jackson-annotations are absent: calls into them stay unjudged)
#   rust    serde_json, bytes, itertools, rayon and regex-automata: whole crates from the
#           corpus registry (registry/src/index.crates.io-*/<crate>-<version>, src/ + tests/
#           + benches/examples). rust-analyzer scip writes Cargo.lock and its index into the
#           crate, so the oracle runs on a scratch copy $CG_EVAL_HOME/rust-crates/<crate>
#           (codegraph-tui and score.py read the corpus tree itself); dev-dependencies the
#           corpus lacks are fetched from crates.io into CG_RUST_CARGO_HOME once, by `cargo
#           metadata` in the copy. The oracle leaves some sites unresolved (rust-analyzer
#           does not index every integration test: bytes' tests/), so they are unjudged.
# Metrics (score.py): precision = correct / judged edges (judged: the oracle resolved the site
# to an in-repo callable or proved it external); recall = gold sites (oracle-resolved, in-repo,
# callable) hit by a correct edge. Per tier: precision of that tier's edges alone, and the share
# of gold sites that tier's edges recall (tiers overlap, so those need not add up).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BIN=$root/target/release/codegraph-tui
if [[ $# -gt 0 && ( $1 == */* || -x $1 ) ]]; then BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); shift; fi
[ -x "$BIN" ] || { echo "oracle_eval: no binary at $BIN (cargo build --release)" >&2; exit 2; }
FILTERS=("$@")

H=${CG_EVAL_HOME:-$HOME/.cache/codegraph-eval}
CORPUS=${CG_CORPUS:-$HOME/.cache/codegraph-corpus}
SHARED=${CG_SHARED:-$(cd "$root/.." && pwd)/shared}
OR=$SHARED/oracles
OUT=$H/oracle-out
EV=$H/eval-out
mkdir -p "$OUT" "$EV"
JOBS=${ORACLE_JOBS:-2}
GOROOT_=$H/goroot/usr/lib/go-1.19

# key | language | repo dir (relative to $CORPUS) | oracle-specific argument
REPOS=(
  "python-requests|python|python/requests-2.32.3|"
  "python-flask|python|python/flask-3.0.3|"
  "python-click|python|python/click-8.1.7|"
  "python-attrs|python|python/attrs-23.2.0|"
  "python-flask-pkg|python|python/flask-3.0.3/src/flask|.."
  "ts-query-core|ts|npm/tanstack-query-core-5.108.4/src|"
  "ts-rxjs|ts|npm/rxjs-7.8.2/src|"
  "js-express|js|npm/express-5.3.0|"
  "js-lodash|js|npm/lodash-4.18.1|--exclude .min.js"
  "go-go-git|go|go/src/github.com/go-git/go-git|github.com/go-git/go-git/v5"
  "go-x-tools-go|go|go/src/golang.org/x/tools/go|golang.org/x/tools/go"
  "java-commons-lang3|java|java/commons-lang-rel-commons-lang-3.12.0/src/main/java|"
  "java-jsoup|java|java/jsoup-jsoup-1.15.3/src/main/java|"
  "java-jackson-databind|java|java/jackson-databind-jackson-databind-2.14.0/src/main/java|"
  "js-svelte|js|npm/svelte-5.57.3/src|"
  "ts-trpc-server|ts|npm/trpc-server-11.25.2/src|"
  "go-gin|go|go/src/github.com/gin-gonic/gin|github.com/gin-gonic/gin"
  "go-go-git-plumbing|go|go/src/github.com/go-git/go-git/plumbing|github.com/go-git/go-git/v5/plumbing"
  "rust-serde-json|rust|rust/registry/src/index.crates.io-1949cf8c6b5b557f/serde_json-1.0.154|"
  "rust-bytes|rust|rust/registry/src/index.crates.io-1949cf8c6b5b557f/bytes-1.12.2|"
  "rust-itertools|rust|rust/registry/src/index.crates.io-1949cf8c6b5b557f/itertools-0.12.1|"
  "rust-rayon|rust|rust/registry/src/index.crates.io-1949cf8c6b5b557f/rayon-1.12.0|"
  "rust-regex-automata|rust|rust/registry/src/index.crates.io-1949cf8c6b5b557f/regex-automata-0.4.19|"
)

selected() {  # key lang
  [ ${#FILTERS[@]} -eq 0 ] && return 0
  local f
  for f in "${FILTERS[@]}"; do [[ $f == "$1" || $f == "$2" ]] && return 0; done
  return 1
}

run_oracle() {  # key lang dir arg -> $OUT/key.jsonl
  local key=$1 lang=$2 dir=$3 arg=$4 tmp="$OUT/$1.jsonl.tmp"
  echo "oracle_eval: running the $lang oracle on $dir (cached afterwards in $OUT/$key.jsonl)" >&2
  case $lang in
    python)
      "$H/venv/bin/python" "$OR/py_oracle.py" "$dir" --sys-path "$dir/${arg:-src}" -j "$JOBS" > "$tmp" ;;
    ts|js)
      # shellcheck disable=SC2086
      node "$OR/ts_oracle.js" "$dir" $arg > "$tmp" ;;
    go)
      # GOPATH mode: the module path (…/v5) must exist as a directory, so link it
      local gp="$H/gopath/src/$arg"
      mkdir -p "$(dirname "$gp")"
      [ -e "$gp" ] || ln -sfn "$dir" "$gp"
      GOROOT=$GOROOT_ GOPATH="$H/gopath" GO111MODULE=off GOFLAGS= "$H/go-oracle/go_oracle" "$gp" > "$tmp" ;;
    java)
      java --add-exports jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED \
           --add-exports jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED -Xss8m -Xmx4g \
           -cp "$H/java-classes" JavaOracle "$dir" > "$tmp" ;;
    rust)
      # a scratch copy: rust-analyzer writes Cargo.lock and .oracle.scip into the crate
      local copy="$H/rust-crates/$(basename "$dir")" ch=${CG_RUST_CARGO_HOME:-$CORPUS/rust}
      [ -d "$copy" ] || { mkdir -p "$H/rust-crates"; cp -r "$dir" "$copy"; }
      # dependencies (dev-dependencies too) must resolve offline; fetch the missing ones once
      (cd "$copy" && { CARGO_HOME=$ch cargo metadata --offline --format-version 1 >/dev/null 2>&1 ||
                       CARGO_HOME=$ch cargo metadata --format-version 1 >/dev/null; })
      CARGO_HOME=$ch CARGO_NET_OFFLINE=true "$H/venv/bin/python" "$OR/rs_oracle.py" "$copy" > "$tmp" ;;
  esac
  mv "$tmp" "$OUT/$key.jsonl"
}

KEYS=()
for spec in "${REPOS[@]}"; do
  IFS='|' read -r key lang rel arg <<< "$spec"
  selected "$key" "$lang" || continue
  dir="$CORPUS/$rel"
  if [ ! -d "$dir" ]; then echo "oracle_eval: skip $key: no $dir (run shared/corpus/fetch.sh)" >&2; continue; fi
  if [[ ${ORACLE_REFRESH:-0} == 1 || ! -s "$OUT/$key.jsonl" ]]; then run_oracle "$key" "$lang" "$dir" "$arg"; fi
  t0=$(date +%s%N)
  "$BIN" -C "$dir" --no-cache graph --json > "$EV/$key.graph.json"
  t1=$(date +%s%N)
  python3 "$OR/graph2edges.py" < "$EV/$key.graph.json" > "$EV/$key.edges.jsonl"
  python3 "$OR/score.py" --repo "$dir" --oracle "$OUT/$key.jsonl" --edges "$EV/$key.edges.jsonl" --json > "$EV/$key.score.json"
  rm -f "$EV/$key".tier-*
  # the same edges with the site column (graph2edges.py drops it): score.py then matches the
  # exact call on the line, so a correct edge at `f(g(x))` is not judged against g
  python3 - "$EV/$key" <<'EOF'
import json, sys
pre = sys.argv[1]
g = json.load(open(pre + ".graph.json"))
nodes = {n["id"]: n for n in g["nodes"]}
tiers = {}
with open(pre + ".edges-col.jsonl", "w") as out:
    for e in g["edges"]:
        t, s = nodes.get(e["target"]), nodes.get(e["source"])
        if e.get("relation") != "calls" or t is None:
            continue
        for site in e.get("sites") or []:
            l = json.dumps({"file": site["file"], "line": site["line"], "col": site["column"] - 1,
                            "def_file": t["file"], "def_line": t["start_line"],
                            "caller_line": s["start_line"] if s and s.get("kind") != "file" else 0,
                            "resolution": e.get("resolution"), "confidence": e.get("confidence")}) + "\n"
            out.write(l)
            tiers.setdefault(e.get("resolution") or "none", []).append(l)
for t, ls in tiers.items():
    open("%s.tier-%s.jsonl" % (pre, t), "w").writelines(ls)
EOF
  python3 "$OR/score.py" --repo "$dir" --oracle "$OUT/$key.jsonl" --edges "$EV/$key.edges-col.jsonl" --json > "$EV/$key.score-col.json"
  for f in "$EV/$key".tier-*.jsonl; do
    [ -e "$f" ] || continue
    python3 "$OR/score.py" --repo "$dir" --oracle "$OUT/$key.jsonl" --edges "$f" --json > "${f%.jsonl}.score.json"
  done
  if [[ ${EVAL_ERRORS:-0} -gt 0 ]]; then
    python3 "$OR/score.py" --repo "$dir" --oracle "$OUT/$key.jsonl" --edges "$EV/$key.edges-col.jsonl" --show-errors "$EVAL_ERRORS" > "$EV/$key.errors.txt"
  fi
  rm -f "$EV/$key.graph.json"
  printf '%s|%s|%s\n' "$key" "$lang" "$(( (t1 - t0) / 1000000 ))" > "$EV/$key.meta"
  KEYS+=("$key")
done
[ ${#KEYS[@]} -gt 0 ] || { echo "oracle_eval: nothing selected" >&2; exit 2; }

python3 - "$EV" "$BIN" "${KEYS[@]}" <<'EOF'
import json, os, sys, glob
ev, binary, keys = sys.argv[1], sys.argv[2], sys.argv[3:]
TIER_ORDER = ["syntax", "local", "import", "qualified", "unique_name", "none"]
LANG_ORDER = ["python", "ts", "js", "go", "java", "rust"]
rows = {}
for k in keys:
    _, lang, secs = open(os.path.join(ev, k + ".meta")).read().strip().split("|")
    s = json.load(open(os.path.join(ev, k + ".score.json")))
    s["col"] = json.load(open(os.path.join(ev, k + ".score-col.json")))
    tiers = {}
    for f in glob.glob(os.path.join(ev, k + ".tier-*.score.json")):
        t = os.path.basename(f)[len(k) + 6:-len(".score.json")]
        tiers[t] = json.load(open(f))
    rows.setdefault(lang, []).append((k, s, tiers, float(secs) / 1000))

def ratio(a, b):
    return a / b if b else float("nan")

def fmt(x):
    return "–" if x != x else "%.3f" % x

def counts(s):
    e = s["edges"]
    return dict(correct=e.get("edges_correct", 0), judged=e.get("edges_judged", 0),
                unjudged=e.get("edges_unjudged", 0), outside=e.get("edges_outside_oracle_files", 0),
                recalled=s["gold_recalled"], gold=s["gold_sites"])

def add(a, b):
    return {k: a.get(k, 0) + b.get(k, 0) for k in set(a) | set(b)}

print("Call-edge accuracy of `%s` against the oracles (score.py; site-level)." % os.path.relpath(binary))
print()
for lang in sorted(rows, key=lambda l: LANG_ORDER.index(l) if l in LANG_ORDER else 99):
    rs = rows[lang]
    present = [t for t in TIER_ORDER if any(t in r[2] for r in rs)] + \
              sorted({t for r in rs for t in r[2]} - set(TIER_ORDER))
    head = ["repo", "P (line)", "P (col)", "recall", "F1 (col)", "correct/judged (col)", "recalled/gold", "unjudged (col)"] + \
           ["%s P / R (n)" % t for t in present] + ["secs"]
    print("### %s" % lang)
    print()
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    tot, ltot, ttot = {}, {}, {t: {} for t in present}
    def line(name, cl, c, tc, secs):
        P, R = ratio(c["correct"], c["judged"]), ratio(c["recalled"], c["gold"])
        F = 2 * P * R / (P + R) if P == P and R == R and P + R else float("nan")
        cells = [name, fmt(ratio(cl["correct"], cl["judged"])), fmt(P), fmt(R), fmt(F), "%d/%d" % (c["correct"], c["judged"]),
                 "%d/%d" % (c["recalled"], c["gold"]), str(c["unjudged"])]
        for t in present:
            x = tc.get(t)
            if not x or not x.get("judged"):
                cells.append("–" if not x else "– / %s (0)" % fmt(ratio(x.get("recalled", 0), c["gold"])))
            else:
                cells.append("%s / %s (%d)" % (fmt(ratio(x["correct"], x["judged"])),
                                               fmt(ratio(x["recalled"], c["gold"])), x["judged"]))
        cells.append("%.1f" % secs if secs is not None else "")
        print("| " + " | ".join(cells) + " |")
    tsecs = 0.0
    for k, s, tiers, secs in rs:
        cl, c = counts(s), counts(s["col"])
        tc = {t: counts(tiers[t]) for t in tiers}
        line(k, cl, c, tc, secs)
        tot, ltot = add(tot, c), add(ltot, cl)
        tsecs += secs
        for t in present:
            if t in tc:
                ttot[t] = add(ttot[t], tc[t])
    if len(rs) > 1:
        line("**all %s**" % lang, ltot, tot, {t: v for t, v in ttot.items() if v}, tsecs)
    print()
# site forms: bare f() vs member a.f() (vs path a::f)
print("### by call form (all repos of a language)")
print()
print("| language | form | precision (judged) | recall (gold) |")
print("|---|---|---:|---:|")
for lang in sorted(rows, key=lambda l: LANG_ORDER.index(l) if l in LANG_ORDER else 99):
    forms = {}
    for k, s, tiers, secs in rows[lang]:
        for f, v in s["col"].get("by_form", {}).items():
            forms[f] = add(forms.get(f, {}), v)
    for f in sorted(forms):
        v = forms[f]
        print("| %s | %s | %s (%d) | %s (%d) |" % (lang, f, fmt(ratio(v.get("correct", 0), v.get("judged", 0))), v.get("judged", 0),
                                                 fmt(ratio(v.get("recalled", 0), v.get("gold", 0))), v.get("gold", 0)))
print()
print("P (line) = score.py on graph2edges.py output (site = file:line, so an edge is judged against "
      "every call on its line); P (col) and everything else = the same edges with their column, matched "
      "to the exact call. unjudged = edges at calls the oracle could not judge (dynamic/unresolved/"
      "non-callable such as Go conversions); tier P / R (n) = precision of that tier's edges, share of "
      "all gold sites they recall, judged edges. secs = the codegraph-tui run.")
EOF
