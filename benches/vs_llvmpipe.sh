#!/usr/bin/env bash
# spritebake vs Mesa llvmpipe (the glrender peer in ../shared/tools/glpeer), side by side on the
# same frames: the same models, sizes and frame counts, a perspective camera (fov 40°, 15° above
# the horizon) orbiting the model's bounding sphere at the same distance, textured, Lambert-lit,
# back faces culled, every image kept in memory. Runs alternate between the two renderers, REPS
# times per row (three times REPS for the whole sheet commands); each row prints the median
# frames/s of both, their spread (min-max) and the ratio spritebake / llvmpipe.
#
# spritebake poses every frame of the animated rows (posing is inside its time); glrender cannot
# animate skeletons, so it renders the model's static pose (an OBJ written by `spritebake export`
# where assimp cannot read the file).
#
#   bash benches/vs_llvmpipe.sh                 # needs glrender built: see its README
#   GLRENDER=/path/glrender_egl REPS=5 bash benches/vs_llvmpipe.sh
#   SPRITEBAKE=/tmp/old/spritebake bash benches/vs_llvmpipe.sh   # another build
set -euo pipefail
cd "$(dirname "$0")/.."
GL=${GLRENDER:-/tmp/glpeer/glrender_egl}
REPS=${REPS:-5}
CORPUS=../shared/corpus
if [ ! -x "$GL" ]; then
    echo "skip: glrender not found at $GL (build it as ../shared/tools/glpeer/README.md says)"
    exit 0
fi
if [ ! -d "$CORPUS" ]; then
    echo "skip: $CORPUS is absent"
    exit 0
fi
# SPRITEBAKE=path/to/spritebake measures another build (an earlier commit's, say) instead.
SB=${SPRITEBAKE:-target/release/spritebake}
[ -n "${SPRITEBAKE:-}" ] || cargo build --release --quiet
WORK=target/bench
mkdir -p "$WORK"

# A UV sphere of 204 rings x 200 segments x 2 = 81,600 triangles.
DENSE=$WORK/dense_sphere.obj
if [ ! -s "$DENSE" ]; then
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
# assimp cannot read the headcrab's SMD (a material name with a space): glrender gets its pose.
HEADCRAB=$WORK/headcrab/headcrab.obj
mkdir -p "$WORK/headcrab"
"$SB" export "$CORPUS/smd/headcrab/reference.smd" --anim "$CORPUS/smd/headcrab/walk.smd" -o "$HEADCRAB" >/dev/null

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
spread() { sort -g | awk 'NR==1{lo=$1} {hi=$1} END {printf "%s-%s", lo, hi}'; }
fps() { sed -n 's/.* \([0-9.]*\) frames\/s.*/\1/p' | head -1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

echo "machine: $(nproc) cores, $(lscpu | sed -n 's/^Model name: *//p'), $(date -u +%F)"
echo
echo "| model | size | threads | spritebake frames/s (spread) | llvmpipe frames/s (spread) | ratio |"
echo "|---|---|---|---|---|---|"
# name | spritebake model + args | glrender model + args. No --zup for glrender: assimp already
# turns MD2 and MD5 Y-up (with --zup they lie on their side). The ogro's skin is not where its MD2
# says, so glrender is given the one spritebake picks (else it renders the ogro untextured).
ROWS=(
  "md2 phoenix_ugv, 2,282 tris, frame 0|$CORPUS/md2/edge/phoenix_ugv/phoenix_ugv.md2|$CORPUS/md2/edge/phoenix_ugv/phoenix_ugv.md2"
  "md2 ogro run, 670 tris (posed)|$CORPUS/md2/ogro/ogro.md2 --anim run|$CORPUS/md2/ogro/ogro.md2 --texture $CORPUS/md2/ogro/skins/igdosh.png"
  "md5 bob_lamp, 1,027 tris (posed)|$CORPUS/md5/bob_lamp/boblampclean.md5mesh --anim $CORPUS/md5/bob_lamp/boblampclean.md5anim|$CORPUS/md5/bob_lamp/boblampclean.md5mesh"
  "smd headcrab walk, 478 tris (posed)|$CORPUS/smd/headcrab/reference.smd --anim $CORPUS/smd/headcrab/walk.smd|$HEADCRAB"
  "dense sphere, 81,600 tris|$DENSE|$DENSE"
)
for row in "${ROWS[@]}"; do
  IFS='|' read -r name sbmodel glmodel <<<"$row"
  for size in 128 256 1024; do
    frames=400; [ "$size" = 1024 ] && frames=100
    for t in 1 2; do
      sb=(); gl=()
      for _ in $(seq "$REPS"); do
        # shellcheck disable=SC2086
        # One sample per pixel, as llvmpipe renders (commands supersample 4x4 by default).
        sb+=("$("$SB" bench $sbmodel --size "$size" --frames "$frames" --fov 40 --pitch 15 --ssaa 1 --threads "$t" 2>/dev/null | fps)")
        # shellcheck disable=SC2086
        gl+=("$(LP_NUM_THREADS=$t "$GL" $glmodel --size "${size}x${size}" --frames "$frames" --cull 2>&1 | fps)")
      done
      s=$(printf '%s\n' "${sb[@]}" | median); g=$(printf '%s\n' "${gl[@]}" | median)
      echo "| $name | ${size}² | $t | $s ($(printf '%s\n' "${sb[@]}" | spread)) | $g ($(printf '%s\n' "${gl[@]}" | spread)) | $(ratio "$s" "$g") |"
    done
  done
done

# The sprite-sheet jobs: spritebake's whole command (load, pose, render every cell at 128² with
# 4x4 samples, resolve, pack, encode PNG and JSON) against glrender's timed frames only for the
# same number of frames at 512² (the same sample count) of the model's static pose: the robot's
# walk (16 frames x 8 directions) and sydney's 40-frame `stand` (x 8 directions; glrender is
# given sydney's skin, which her MD2 does not name).
ROBOT=examples/assets/robot
mkdir -p "$WORK/robot"
"$SB" export "$ROBOT/robot.md5mesh" -o "$WORK/robot/robot.obj" >/dev/null
SYDNEY=$CORPUS/md2/sydney
# The Mixamo dancer (49,112 triangles): 16 frames of its `mixamo.com` take; glrender draws
# assimp's pose of the same file.
FLAIR=$CORPUS/fbx/flair/Flair.fbx
SHEETS=(
  "robot walk, 16 frames|$ROBOT/robot.md5mesh --anim $ROBOT/walk.md5anim --ortho|$WORK/robot/robot.obj|128"
  "sydney stand, 40 frames|$SYDNEY/sydney.md2 --anim stand|$SYDNEY/sydney.md2 --texture $SYDNEY/sydney.bmp|320"
  "Flair (Mixamo FBX, 49k tris), 16 frames|$FLAIR --anim mixamo.com --frames 16|$FLAIR|128"
)
# A whole command of a fifth of a second is at the mercy of one busy moment on a shared host,
# where glrender's frames are timed inside it: these rows take three times REPS runs each
# (SHEET_REPS), still alternating, so that their medians hold from one run of the script to
# the next.
SHEET_REPS=${SHEET_REPS:-$((3 * REPS))}
echo
echo "| sprite sheet, 8 directions, $SHEET_REPS runs | spritebake whole command, 128² cells, ssaa 4 | glrender timed frames, 512² | speed-up |"
echo "|---|---|---|---|"
for row in "${SHEETS[@]}"; do
  IFS='|' read -r name sbargs glargs frames <<<"$row"
  sb=(); gl=()
  for _ in $(seq "$SHEET_REPS"); do
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$SB" sheet $sbargs --directions 8 --size 128 --ssaa 4 -o "$WORK/sheet.png" --quiet
    sb+=("$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')")
    # shellcheck disable=SC2086
    gl+=("$(LP_NUM_THREADS=2 "$GL" $glargs --size 512x512 --frames "$frames" --cull 2>&1 |
        sed -n 's/.* frames in \([0-9.]*\) s.*/\1/p')")
  done
  s=$(printf '%s\n' "${sb[@]}" | median); g=$(printf '%s\n' "${gl[@]}" | median)
  echo "| $name | $s s ($(printf '%s\n' "${sb[@]}" | spread)) | $g s ($(printf '%s\n' "${gl[@]}" | spread)) | $(ratio "$g" "$s") |"
done

# A dense mesh at sprite size: the sphere's 81,600 triangles at 128² with 4x4 samples (most
# cover a sample or none) against glrender at 512², the same sample count, 400 frames each.
echo
echo "| dense sphere, 81,600 tris, 128² ssaa 4 vs 512² | threads | spritebake frames/s (spread) | llvmpipe frames/s (spread) | ratio |"
echo "|---|---|---|---|---|"
for t in 1 2; do
  sb=(); gl=()
  for _ in $(seq "$REPS"); do
    sb+=("$("$SB" bench "$DENSE" --size 128 --frames 400 --fov 40 --pitch 15 --ssaa 4 --threads "$t" 2>/dev/null | fps)")
    gl+=("$(LP_NUM_THREADS=$t "$GL" "$DENSE" --size 512x512 --frames 400 --cull 2>&1 | fps)")
  done
  s=$(printf '%s\n' "${sb[@]}" | median); g=$(printf '%s\n' "${gl[@]}" | median)
  echo "| dense sphere | $t | $s ($(printf '%s\n' "${sb[@]}" | spread)) | $g ($(printf '%s\n' "${gl[@]}" | spread)) | $(ratio "$s" "$g") |"
done
