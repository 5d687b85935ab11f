#!/usr/bin/env bash
# bench/searchbench.sh [PACKAGE...]: retrieval quality, latency and index size of `search` on
# ../shared/searchbench, over the Python packages that ../shared/corpus/fetch.sh brings
# (default flask requests click attrs). Run from the checkout after `cargo build --release`;
# BIN and SHARED override the binary and the shared/ directory.
# Prints one markdown table row per package and mode. Uses a throwaway cache dir.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${BIN:-$here/target/release/codegraph-tui}
shared=${SHARED:-$here/../shared}
corpus=${CG_CORPUS:-$HOME/.cache/codegraph-corpus}
pkgs=("$@"); [ ${#pkgs[@]} -gt 0 ] || pkgs=(flask requests click attrs)
export XDG_CACHE_HOME=$(mktemp -d)
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
echo "| package | queries | mode | MRR@10 | recall@10 | p50 ms | p99 ms | index / source |"
echo "|---|---|---|---|---|---|---|---|"
for p in "${pkgs[@]}"; do
  src=$(ls -d "$corpus/python/$p"-* "$corpus/python/${p^}"-* 2>/dev/null | head -n 1 || true)
  bench=/tmp/searchbench-$p
  python3 "$shared/searchbench/make_bench.py" "$src" "$bench" 2>/dev/null
  python3 -c "import json,sys; [print(json.loads(l)['query'].replace('\n',' ')) for l in open('$bench/qrels.jsonl')]" > "$bench/queries.txt"
  # Build the vectors once, timed (every later run takes them from the cache).
  "$bin" -C "$bench/repo" search --mode semantic --limit 1 --stats "return the value" 2>&1 >/dev/null | tail -n 1 |
    python3 -c "import json,sys; b=json.load(sys.stdin)['build']; s=b['elapsed_ms']['vectors']/1000
print(f\"# $p: {b['chunks']} chunks, {b['vectors_embedded']} embedded in {s:.1f} s \"
      f\"({b['vectors_embedded']/max(s,1e-9):.1f} chunks/s) by {b['embedder']}\")" >&2
  for m in text semantic hybrid; do
    score=$(python3 "$shared/searchbench/score.py" "$bench" --bin "$bin" --mode $m | tail -n 1)
    stats=$("$bin" -C "$bench/repo" search --batch "$bench/queries.txt" --mode $m --limit 10 --json --stats 2>&1 >/dev/null | tail -n 1)
    python3 - "$p" "$m" "$score" "$stats" <<'PY'
import json, re, sys
p, m, score, stats = sys.argv[1:]
s = json.loads(stats)
f = dict(re.findall(r"(\w+@?\d*)=([\d.]+)", score))
size = s["build"]["text_index_bytes"] + s["build"]["vector_bytes"]
print(f"| {p} | {f['queries']} | {m} | {f['mrr@10']} | {f['recall@10']} | "
      f"{s['latency_ms']['p50']:.1f} | {s['latency_ms']['p99']:.1f} | "
      f"{size / max(1, s['source_bytes']):.2f} |")
PY
  done
done
