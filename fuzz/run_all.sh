#!/usr/bin/env bash
# Fuzzes every target for SECONDS each (default 600), two at a time (one per core), after
# seeding the corpora; prints executions, coverage and crashes per target. cargo-fuzz needs
# nightly features, which the stable toolchain provides with RUSTC_BOOTSTRAP=1.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${SECONDS_EACH:-600}
export RUSTC_BOOTSTRAP=1
bash fuzz/seed.sh
cargo fuzz build -O
mkdir -p fuzz/logs
targets=(md2 md5_mesh md5_anim smd obj texture manifest pose_render gltf output_plan scripts palette project iqm mdl fbx studio md3)
run() {
    cargo fuzz run -O "$1" -- -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
        > "fuzz/logs/$1.log" 2>&1 || true
}
for ((i = 0; i < ${#targets[@]}; i += 2)); do
    run "${targets[i]}" &
    [ -n "${targets[i + 1]:-}" ] && run "${targets[i + 1]}" &
    wait
done
for t in "${targets[@]}"; do
    last=$(grep -E '^#[0-9]+' "fuzz/logs/$t.log" | tail -1 || true)
    crashes=$(ls "fuzz/artifacts/$t" 2>/dev/null | wc -l)
    echo "$t: ${last:-no stats}  crashes: $crashes"
done
