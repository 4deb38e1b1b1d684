#!/usr/bin/env bash
# An asset tree for thumbnail batches: COPIES copies of every model folder of the corpus's MD2,
# MD5, OBJ, SMD and glTF folders (the `edge` folders of deliberately broken files left out),
# as TREE/NN/FORMAT/NAME. Used by thumbnail_threads.sh and thread_scaling.sh.
#
#   benches/corpus_tree.sh TREE CORPUS COPIES
set -euo pipefail
tree=$1
corpus=$2
copies=$3
for c in $(seq -w 1 "$copies"); do
    for format in md2 md5 obj smd gltf; do
        for folder in "$corpus/$format"/*/; do
            name=$(basename "$folder")
            [ "$name" = edge ] && continue
            mkdir -p "$tree/$c/$format"
            cp -r "$folder" "$tree/$c/$format/$name"
        done
    done
done
