#!/usr/bin/env bash
# Thumbnails per second against threads (issue 28): a tree of COPIES copies of every model
# folder of the corpus that loads (the `edge` folders of deliberately broken files left out),
# thumbnailed at the default size with --threads 1, 2, 4 ... up to the cores, best of RUNS.
#
#   benches/thumbnail_threads.sh [SPRITEBAKE] [CORPUS] [COPIES] [RUNS]
#
# Defaults: target/release/spritebake, ../shared/corpus, 12 copies (about 360 models), 3 runs.
# Prints one table row per thread count: models, seconds, thumbnails/s, speed-up over 1 thread.
set -euo pipefail
bin=${1:-target/release/spritebake}
corpus=${2:-../shared/corpus}
copies=${3:-12}
runs=${4:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bash "$(dirname "$0")/corpus_tree.sh" "$work/tree" "$corpus" "$copies"

cores=$(nproc)
threads=1
echo "| threads | models | seconds | thumbnails/s | speed-up |"
echo "|--:|--:|--:|--:|--:|"
base=""
while [ "$threads" -le "$cores" ]; do
    best=""
    for _ in $(seq "$runs"); do
        rm -rf "$work/out"
        start=$(date +%s.%N)
        "$bin" thumbnail "$work/tree" -o "$work/out" --threads "$threads" --quiet >"$work/log" || true
        end=$(date +%s.%N)
        t=$(echo "$end - $start" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
    done
    models=$(tail -1 "$work/log" | awk '{print $1}')
    [ -z "$base" ] && base=$best
    printf "| %d | %d | %.3f | %.0f | %.2f× |\n" "$threads" "$models" "$best" "$(echo "$models / $best" | bc -l)" \
        "$(echo "$base / $best" | bc -l)"
    if [ "$threads" -lt "$cores" ] && [ $((threads * 2)) -gt "$cores" ]; then threads=$cores; else threads=$((threads * 2)); fi
done
