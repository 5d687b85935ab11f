#!/bin/sh
# Builds the fuzz targets with AFL++ instrumentation and fuzzes one of them.
# Usage: fuzz/run.sh TARGET SECONDS [afl-fuzz options...]
#   TARGET   extract | snapshot | search_files | text_index | parsers | mcp
#   SECONDS  stop after this long (afl-fuzz -V); the state stays in fuzz/out/TARGET and a
#            second run resumes it.
# Limits (the project's fuzzing criteria): inputs up to 64 KiB (-G), 2 s per input (-t),
# 2048 MB of address space per run (-m). Runs at nice 19. See fuzz/README.md.
set -eu
target=$1
seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/target}"
# The C code (tree-sitter, the grammars, src/index/lang/children.c) reports its edges to
# the same AFL++ runtime as the Rust code: clang's trace-pc-guard hooks are what the
# runtime implements. Without clang, only the Rust code is instrumented.
if command -v clang-14 >/dev/null 2>&1 || command -v clang >/dev/null 2>&1; then
    cc=$(command -v clang-14 || command -v clang)
    export CC="$cc" CFLAGS="-fsanitize-coverage=trace-pc-guard,trace-cmp"
fi
nice -n 19 cargo afl build --release --bins
bin="$CARGO_TARGET_DIR/release"
if [ ! -d "corpus/$target" ]; then
    "$bin/seeds" corpus "$here/../tests/fixtures" "$here/../../shared/cases" >/dev/null
fi
mkdir -p out
export AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_AUTORESUME=1 AFL_NO_AFFINITY=1
export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
exec nice -n 19 cargo afl fuzz -i "corpus/$target" -o "out/$target" \
    -m 2048 -t 2000 -G 65536 -V "$seconds" "$@" "$bin/$target"
