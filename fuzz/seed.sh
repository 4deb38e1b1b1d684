#!/usr/bin/env bash
# Seeds each fuzz target's corpus (fuzz/corpus/<target>, not committed) from the project's own
# fixtures and example assets, plus earlier crash inputs kept under tests/fixtures/crash/.
set -euo pipefail
cd "$(dirname "$0")/.."
seed() {
    local target=$1
    shift
    mkdir -p "fuzz/corpus/$target"
    for f in "$@"; do
        if [ -f "$f" ]; then cp "$f" "fuzz/corpus/$target/"; fi
    done
}
A=examples/assets
seed md2 $A/robot/robot.md2
seed md5_mesh $A/robot/robot.md5mesh
seed md5_anim $A/robot/walk.md5anim
seed smd $A/robot/robot.smd $A/robot/walk.smd
seed obj $A/tower.obj $A/tower.mtl
seed texture $A/tower_bricks.png $A/robot/robot.png
seed manifest examples/check/cases.toml
seed scripts ../shared/corpus/smd/headcrab/headcrab.qc
printf 'table t { { 0, 1 } }\nmodels/a\n{\n translucent\n bumpmap addnormals(a.tga, heightmap(b.tga, 4))\n {\n  blend diffusemap\n  map a_d.tga\n  alphaTest 0.5\n }\n}\n' > fuzz/corpus/scripts/seed.mtr
printf 'models/a/leaves\n{\n surfaceparm alphashadow\n cull disable\n {\n  map $lightmap\n }\n {\n  clampMap models/a/leaves.tga\n  blendFunc GL_DST_COLOR GL_ZERO\n  alphaFunc LT128\n  tcMod scroll 1 0\n }\n}\n' > fuzz/corpus/scripts/seed.shader
seed project examples/robot.bake.toml
mkdir -p fuzz/corpus/palette
printf 'GIMP Palette\nName: p\nColumns: 2\n# c\n  0   0   0\tblack\n255 255 255 white\n' > fuzz/corpus/palette/p.gpl
printf 'ffffff\n000000\n#ff8000\n' > fuzz/corpus/palette/p.hex
printf 'JASC-PAL\n0100\n2\n0 0 0\n255 255 255\n' > fuzz/corpus/palette/p.pal
mkdir -p fuzz/corpus/output_plan
printf 'out/{clip}_{dir}_{frame:03}.png\0walk\0../../escape\0/tmp/abs\0a->b\0..' > fuzz/corpus/output_plan/names
# glTF seeds come from the shared corpus when it is there (the project ships no .glb of its own).
seed gltf ../shared/corpus/gltf/*/*.glb ../shared/corpus/gltf/*/*.gltf
# FBX seeds: the shared corpus's small files (Flair's 1.8 MB is over the fuzzer's -max_len).
seed fbx ../shared/corpus/fbx/huesitos/*.fbx ../shared/corpus/fbx/spider/*.fbx ../shared/corpus/fbx/animation_with_skeleton/*.fbx
# and the tests' hand-written ASCII file of in-between blend shapes and a stack animating them.
seed fbx tests/fixtures/fbx/blend_shapes.fbx
# IQM and Quake 1 MDL: the tests' hand-built files (every feature in a few hundred bytes) and
# the shared corpus models (longer than -max_len: the fuzzer sees their first 64 KiB).
seed iqm tests/fixtures/iqm/tiny.iqm ../shared/corpus/iqm/*/*.iqm
seed mdl tests/fixtures/mdl/tiny.mdl ../shared/corpus/mdl/quake1/*/*.MDL ../shared/corpus/mdl/quake1/*/*.mdl
# MD3: the shared corpus's props.
seed md3 ../shared/corpus/md3/*/*.md3
# Half-Life studio models: the shared corpus's, all small.
seed studio ../shared/corpus/mdl/hl1/*.mdl
mkdir -p fuzz/corpus/pose_render
for f in $A/robot/robot.md2:0 $A/robot/robot.md5mesh:1 $A/robot/robot.smd:2 $A/tower.obj:3; do
    file=${f%:*}; kind=${f##*:}
    { printf "\\x$(printf %02x "$kind")"; cat "$file"; } > "fuzz/corpus/pose_render/$(basename "$file")"
done
for dir in tests/fixtures/crash/*/; do
    [ -d "$dir" ] && seed "$(basename "$dir")" "$dir"*
done
echo "seeded fuzz/corpus"
