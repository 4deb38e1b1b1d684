# Blender's own FBX import as a peer: imports FBX, plays the action whose name contains
# ACTION from its first frame, and writes the evaluated (skinned) meshes of frame k after that
# first frame as OBJ (vertices and faces, world space, turned from Blender's Z-up back to
# FBX's Y-up: (x, y, z) -> (x, z, -y)) to OUT % k.
#
#   blender -b --factory-startup -noaudio --python fbx_pose.py -- FILE.fbx ACTION OUT_%d.obj 0,10,20
import sys

import bpy

fbx, action_part, out, frames = sys.argv[sys.argv.index("--") + 1:][:4]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.fbx(filepath=fbx)
actions = [a for a in bpy.data.actions if action_part in a.name]
if not actions:
    sys.exit("no action named like %r: %s" % (action_part, [a.name for a in bpy.data.actions]))
action = actions[0]
for ob in bpy.data.objects:
    if ob.type == "ARMATURE":
        ob.animation_data_create()
        ob.animation_data.action = action
first = int(round(action.frame_range[0]))
for k in [int(f) for f in frames.split(",")]:
    bpy.context.scene.frame_set(first + k)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    base = 1
    with open(out % k, "w") as fh:
        for ob in bpy.data.objects:
            if ob.type != "MESH":
                continue
            evaluated = ob.evaluated_get(depsgraph)
            mesh = evaluated.to_mesh()
            world = evaluated.matrix_world
            for v in mesh.vertices:
                p = world @ v.co
                fh.write("v %.6f %.6f %.6f\n" % (p.x, p.z, -p.y))
            for poly in mesh.polygons:
                fh.write("f " + " ".join(str(base + i) for i in poly.vertices) + "\n")
            base += len(mesh.vertices)
            evaluated.to_mesh_clear()
