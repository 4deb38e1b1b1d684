# Writes FBX files of a textured quad for the loader's texture tests: a 2x2-texel image (red,
# green, blue, white) saved as PNG beside the files, on a quad facing the camera, exported
# once with the image embedded in the FBX and once naming it as an external file.
#
#   blender -b --factory-startup -noaudio --python textured_fbx.py -- OUT_FOLDER
import os
import sys

import bpy

out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
image = bpy.data.images.new("quad_skin", width=2, height=2)
# Rows from the bottom: blue, white; then red, green.
image.pixels = [0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1]
image.filepath_raw = os.path.join(out, "quad_skin.png")
image.file_format = "PNG"
image.save()
bpy.ops.mesh.primitive_plane_add(size=2)
quad = bpy.context.active_object
material = bpy.data.materials.new("quad_material")
material.use_nodes = True
texture = material.node_tree.nodes.new("ShaderNodeTexImage")
texture.image = image
texture.interpolation = "Closest"
bsdf = material.node_tree.nodes["Principled BSDF"]
material.node_tree.links.new(texture.outputs["Color"], bsdf.inputs["Base Color"])
quad.data.materials.append(material)
for name, embed in [("embedded", True), ("external", False)]:
    path = os.path.join(out, name + ".fbx")
    bpy.ops.export_scene.fbx(filepath=path, path_mode="COPY" if embed else "RELATIVE", embed_textures=embed)
