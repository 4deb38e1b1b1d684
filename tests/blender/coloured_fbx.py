# Writes an FBX of a quad with a colour on each corner (red, green, blue, grey 0.5: linear
# floats in Blender), standing upright and facing the front (-Y in Blender), for the
# vertex-colour tests. Blender's exporter writes the colours in sRGB.
#
#   blender -b --factory-startup -noaudio --python coloured_fbx.py -- OUT.fbx
import math
import sys

import bpy

out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_plane_add(size=2, rotation=(math.pi / 2, 0.0, 0.0))
quad = bpy.context.active_object
bpy.ops.object.transform_apply(rotation=True)
colours = quad.data.color_attributes.new("Col", "FLOAT_COLOR", "POINT")
for i, colour in enumerate([(1, 0, 0, 1), (0, 1, 0, 1), (0, 0, 1, 1), (0.5, 0.5, 0.5, 1)]):
    colours.data[i].color = colour
quad.data.materials.append(bpy.data.materials.new("white"))
bpy.ops.export_scene.fbx(filepath=out, use_selection=True)
