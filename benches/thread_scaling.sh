#!/usr/bin/env bash
# Thread scaling of whole jobs (issue 33): each job at --threads 1, 2, 4 ... up to the cores,
# the median of RUNS runs each (wall clock of the whole command), with the speed-up over one
# thread and the serial fraction that speed-up implies (Karp-Flatt: e = (1/S - 1/p) / (1 - 1/p),
# the share of the one-thread time that did not shrink with p threads).
#
#   benches/thread_scaling.sh [SPRITEBAKE] [CORPUS] [ROBOT_DIR] [RUNS] [COPIES]
#
# Defaults: target/release/spritebake, ../shared/corpus, examples/assets/robot, 5 runs, 16
# copies of the corpus's model folders for the thumbnail batch (as benches/thumbnail_threads.sh
# builds it: about 350 models). Jobs:
#   sydney sheet   sydney.md2 `stand` (40 frames) x 8 directions, 128 px, --ssaa 4
#   robot sheet    robot walk (16 frames) x 8 directions, 128 px, --ssaa 4, --ortho
#   ogro sheet     ogro.md2, every clip (198 frames) x 16 directions, 128 px, --ssaa 4
#   thumbnails     `thumbnail TREE` at the defaults (256 px, 4x4 samples)
#   1024 px render `bench` phoenix_ugv, 100 frames at 1024², one sample a pixel
set -euo pipefail
bin=$(realpath "${1:-target/release/spritebake}")
corpus=$(realpath "${2:-../shared/corpus}")
robot=$(realpath "${3:-examples/assets/robot}")
runs=${4:-5}
copies=${5:-16}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bash "$(dirname "$0")/corpus_tree.sh" "$work/tree" "$corpus" "$copies"

sheet=(--size 128 --ssaa 4 --quiet)
jobs=(
    "sydney sheet|sheet $corpus/md2/sydney/sydney.md2 --anim stand --directions 8 -o $work/s.png ${sheet[*]}"
    "robot sheet|sheet $robot/robot.md5mesh --anim $robot/walk.md5anim --ortho --directions 8 -o $work/s.png ${sheet[*]}"
    "ogro sheet|sheet $corpus/md2/ogro/ogro.md2 --directions 16 -o $work/s.png ${sheet[*]}"
    "thumbnails|thumbnail $work/tree -o $work/thumbs --quiet"
    "1024 px render|bench $corpus/md2/edge/phoenix_ugv/phoenix_ugv.md2 --size 1024 --frames 100 --ssaa 1"
)

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
cores=$(nproc)
counts=()
t=1
while [ "$t" -le "$cores" ]; do
    counts+=("$t")
    if [ "$t" -lt "$cores" ] && [ $((t * 2)) -gt "$cores" ]; then t=$cores; else t=$((t * 2)); fi
done

echo "machine: $cores cores, $(lscpu | sed -n 's/^Model name: *//p'), $(date -u +%F); $runs runs a cell, medians"
echo
echo "| job | threads | seconds | speed-up | serial fraction |"
echo "|---|--:|--:|--:|--:|"
for job in "${jobs[@]}"; do
    IFS='|' read -r name args <<<"$job"
    base=""
    for t in "${counts[@]}"; do
        times=()
        for _ in $(seq "$runs"); do
            rm -rf "$work/thumbs"
            start=$(date +%s.%N)
            # shellcheck disable=SC2086
            "$bin" $args --threads "$t" >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
            times+=("$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.4f", b - a }')")
        done
        m=$(printf '%s\n' "${times[@]}" | median)
        [ -z "$base" ] && base=$m
        awk -v name="$name" -v t="$t" -v m="$m" -v b="$base" 'BEGIN {
            s = b / m
            e = (t > 1) ? sprintf("%.3f", (1 / s - 1 / t) / (1 - 1 / t)) : "-"
            printf "| %s | %d | %.3f | %.2f× | %s |\n", name, t, m, s, e
        }'
    done
done
