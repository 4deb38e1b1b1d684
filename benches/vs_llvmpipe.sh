#!/usr/bin/env bash
# spritebake vs Mesa llvmpipe (the glrender peer in ../shared/tools/glpeer), side by side:
# the same models, sizes, frame counts and orbit (fov 40°, 15° above the horizon), textured and
# Lambert-lit, images kept in memory. Runs alternate between the two renderers, REPS times per
# row; prints the median frames/s of each and the ratio spritebake / llvmpipe.
#
#   bash benches/vs_llvmpipe.sh                 # needs glrender built: see its README
#   GLRENDER=/path/glrender_egl REPS=5 bash benches/vs_llvmpipe.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GL=${GLRENDER:-/tmp/glpeer/glrender_egl}
REPS=${REPS:-3}
CORPUS=../shared/corpus
if [ ! -x "$GL" ]; then
    echo "skip: glrender not found at $GL (build it as ../shared/tools/glpeer/README.md says)"
    exit 0
fi
if [ ! -d "$CORPUS" ]; then
    echo "skip: $CORPUS is absent"
    exit 0
fi
cargo build --release --quiet
SB=target/release/spritebake
mkdir -p target/bench
DENSE=target/bench/dense_sphere.obj
if [ ! -s "$DENSE" ]; then
    # A UV sphere of 204 rings x 200 segments x 2 = 81,600 triangles.
    python3 - "$DENSE" <<'PY'
import math, sys
rings, segs = 204, 200
with open(sys.argv[1], "w") as f:
    for r in range(rings + 1):
        t = math.pi * r / rings
        for s in range(segs + 1):
            p = 2 * math.pi * s / segs
            f.write(f"v {math.sin(t)*math.sin(p):.6f} {math.cos(t):.6f} {math.sin(t)*math.cos(p):.6f}\n")
            f.write(f"vt {s/segs:.6f} {1-r/rings:.6f}\n")
    row = segs + 1
    for r in range(rings):
        for s in range(segs):
            a, b, c, d = r*row+s+1, r*row+s+2, (r+1)*row+s+1, (r+1)*row+s+2
            f.write(f"f {a}/{a} {c}/{c} {b}/{b}\nf {b}/{b} {c}/{c} {d}/{d}\n")
PY
fi

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
fps() { sed -n 's/.* \([0-9.]*\) frames\/s.*/\1/p' | head -1; }

# name | model | spritebake extra args | glrender extra args
ROWS=(
  "md2 sydney frame 0|$CORPUS/md2/sydney/sydney.md2||--zup"
  "md2 sydney run (posed)|$CORPUS/md2/sydney/sydney.md2|--anim run|--zup"
  "md5 bob_lamp anim (posed)|$CORPUS/md5/bob_lamp/boblampclean.md5mesh|--anim $CORPUS/md5/bob_lamp/boblampclean.md5anim|--zup"
  "smd headcrab walk (posed)|$CORPUS/smd/headcrab/reference.smd|--anim $CORPUS/smd/headcrab/walk.smd|--zup"
  "dense sphere 81.6k tris|$DENSE||"
)
printf '%-28s %-9s %-2s %12s %12s %7s\n' "model" "size" "t" "spritebake" "llvmpipe" "ratio"
for row in "${ROWS[@]}"; do
  IFS='|' read -r name model sbargs glargs <<<"$row"
  for size in 128 256 1024; do
    frames=200; [ "$size" = 1024 ] && frames=60
    for t in 1 2; do
      sb=(); gl=()
      for _ in $(seq "$REPS"); do
        # shellcheck disable=SC2086
        sb+=("$("$SB" bench "$model" $sbargs --size "${size}x${size}" --frames "$frames" --fov 40 --pitch 15 --threads "$t" 2>/dev/null | fps)")
        # shellcheck disable=SC2086
        gl+=("$(LP_NUM_THREADS=$t "$GL" "$model" --size "${size}x${size}" --frames "$frames" $glargs 2>&1 | fps)")
      done
      s=$(printf '%s\n' "${sb[@]}" | median); g=$(printf '%s\n' "${gl[@]}" | median)
      ratio=$(awk -v a="$s" -v b="$g" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
      printf '%-28s %-9s %-2s %12s %12s %7s   (spritebake %s | llvmpipe %s)\n' "$name" "${size}" "$t" "$s" "$g" "$ratio" "${sb[*]}" "${gl[*]}"
    done
  done
done
