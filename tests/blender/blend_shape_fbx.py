# Blend shapes on a skinned mesh, for the FBX loader's test: Blender builds a column of octagon
# rings skinned to a two-bone armature that bends, with three shape keys (Bulge and Pinch
# animated, Lean held at 0.35; Pinch limited by a vertex group of weights 1 and 0.5), exports it
# as OUT/column.fbx, imports that file again, and writes OUT/column.json with what Blender's
# importer makes of it: the shape keys' saved values, and the evaluated vertices (world space,
# turned from Blender's Z-up back to FBX's Y-up: (x, y, z) -> (x, z, -y))
#
# * "rest": the armature in its rest position, the shape keys at their saved values;
# * "posed": at frame k after the animation's first, for each k of FRAMES;
# * "plain": the same frames with every shape key muted, which the shapes must differ from.
#
#   blender -b --factory-startup -noaudio --python blend_shape_fbx.py -- OUT 0,5,10,15,20
import json
import math
import os
import sys

import bpy

out, frames = sys.argv[sys.argv.index("--") + 1:][:2]
frames = [int(f) for f in frames.split(",")]
fbx = os.path.join(out, "column.fbx")

bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.render.fps = 24
scene.frame_start, scene.frame_end = 1, 21

# Nine rings of eight vertices from z = 0 to 2, closed at both ends.
rings, sides, radius = 9, 8, 0.3
verts = []
for r in range(rings):
    z = 2.0 * r / (rings - 1)
    for s in range(sides):
        a = 2 * math.pi * s / sides
        verts.append((radius * math.cos(a), radius * math.sin(a), z))
faces = [(r * sides + s, r * sides + (s + 1) % sides, (r + 1) * sides + (s + 1) % sides, (r + 1) * sides + s)
         for r in range(rings - 1) for s in range(sides)]
faces.append(tuple(reversed(range(sides))))
faces.append(tuple(range((rings - 1) * sides, rings * sides)))
mesh = bpy.data.meshes.new("Column")
mesh.from_pydata(verts, [], faces)
mesh.update()
column = bpy.data.objects.new("Column", mesh)
scene.collection.objects.link(column)

# Two bones up the column; the lower half follows Lower, the upper Upper, blended between.
rig = bpy.data.objects.new("Rig", bpy.data.armatures.new("Rig"))
scene.collection.objects.link(rig)
bpy.context.view_layer.objects.active = rig
bpy.ops.object.mode_set(mode="EDIT")
lower = rig.data.edit_bones.new("Lower")
lower.head, lower.tail = (0, 0, 0), (0, 0, 1)
upper = rig.data.edit_bones.new("Upper")
upper.head, upper.tail = (0, 0, 1), (0, 0, 2)
upper.parent, upper.use_connect = lower, True
bpy.ops.object.mode_set(mode="OBJECT")
column.parent = rig
column.modifiers.new("Rig", "ARMATURE").object = rig
groups = {name: column.vertex_groups.new(name=name) for name in ["Lower", "Upper", "PinchMask"]}
for i, (x, y, z) in enumerate(verts):
    t = min(max((z - 0.75) / 0.5, 0.0), 1.0)
    if t < 1:
        groups["Lower"].add([i], 1 - t, "REPLACE")
    if t > 0:
        groups["Upper"].add([i], t, "REPLACE")
    groups["PinchMask"].add([i], 0.5 if i % 2 else 1.0, "REPLACE")

column.shape_key_add(name="Basis", from_mix=False)
bulge = column.shape_key_add(name="Bulge", from_mix=False)
lean = column.shape_key_add(name="Lean", from_mix=False)
pinch = column.shape_key_add(name="Pinch", from_mix=False)
for i, (x, y, z) in enumerate(verts):
    if z > 1.0:
        bulge.data[i].co = (x * 1.6, y * 1.6, z)
    lean.data[i].co = (x + 0.15 * z, y, z)
    if 0.4 < z < 1.6:
        pinch.data[i].co = (x * 0.5, y * 0.5, z + 0.1)
pinch.vertex_group = "PinchMask"
lean.value = 0.35
for frame, value in [(1, 0.0), (11, 1.0), (21, 0.4)]:
    bulge.value = value
    bulge.keyframe_insert("value", frame=frame)
for frame, value in [(1, 0.2), (21, 0.9)]:
    pinch.value = value
    pinch.keyframe_insert("value", frame=frame)
for name, axis, degrees in [("Lower", 2, 20.0), ("Upper", 0, 60.0)]:
    bone = rig.pose.bones[name]
    bone.rotation_mode = "XYZ"
    for frame, a in [(1, 0.0), (21, degrees)]:
        angles = [0.0, 0.0, 0.0]
        angles[axis] = math.radians(a)
        bone.rotation_euler = angles
        bone.keyframe_insert("rotation_euler", frame=frame)

# One stack of the scene's frames; the shape key values saved are frame 1's.
scene.frame_set(1)
bpy.ops.export_scene.fbx(filepath=fbx, add_leaf_bones=False, use_mesh_modifiers=False,
                         bake_anim_use_all_actions=False, bake_anim_use_nla_strips=False)

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.fbx(filepath=fbx)
scene = bpy.context.scene
column = next(o for o in bpy.data.objects if o.type == "MESH")
rig = next(o for o in bpy.data.objects if o.type == "ARMATURE")
keys = column.data.shape_keys
saved = {k.name: k.value for k in keys.key_blocks[1:]}
actions = {"rig": rig.animation_data.action, "keys": keys.animation_data.action}


def points(muted=False):
    for k in keys.key_blocks[1:]:
        k.mute = muted
    evaluated = column.evaluated_get(bpy.context.evaluated_depsgraph_get())
    m = evaluated.to_mesh()
    ps = [evaluated.matrix_world @ v.co for v in m.vertices]
    evaluated.to_mesh_clear()
    return [[p.x, p.z, -p.y] for p in ps]


first = int(round(actions["rig"].frame_range[0]))
result = {"weights": saved, "posed": {}, "plain": {}}
for k in frames:
    scene.frame_set(first + k)
    result["posed"][k] = points()
    result["plain"][k] = points(muted=True)
rig.animation_data.action = None
keys.animation_data.action = None
for name, value in saved.items():
    keys.key_blocks[name].value = value
for bone in rig.pose.bones:
    bone.matrix_basis.identity()
scene.frame_set(first)
result["rest"] = points()
with open(os.path.join(out, "column.json"), "w") as fh:
    json.dump(result, fh)
