# Renders a model's unlit surface colour as Blender reads the file: for the vertex-colour tests.
#
#   blender -b --factory-startup -noaudio --python unlit_render.py -- MODEL OUT.png SIZE
#
# MODEL is a .gltf (Blender's own importer builds the material: base colour factor × COLOR_0
# × texture), an .obj (the importer reads `v x y z r g b` as sRGB colours) or an .fbx (its
# colours read as sRGB too); for those two the script multiplies the colours into the
# material's colour, as spritebake does. Every material then emits
# its base colour (no light), and an orthographic camera looks at the model's front (+Z in the
# file, -Y in Blender) from a square that holds its bounds without a margin: the frame
# `spritebake render --ortho --pitch 0 --margin 0 --shading unlit --size SIZE` draws. Cycles,
# a one-pixel box filter, the Standard view transform and no dither, so a pixel is the mean of
# the surface over it in linear light, encoded as sRGB.
import os
import sys

import bpy
from mathutils import Vector

model, out, size = sys.argv[sys.argv.index("--") + 1 :]
bpy.ops.wm.read_factory_settings(use_empty=True)
if model.endswith(".obj"):
    bpy.ops.wm.obj_import(filepath=model)
elif model.endswith(".fbx"):
    bpy.ops.import_scene.fbx(filepath=model)
else:
    try:
        import numpy
    except ImportError:
        # Blender's glTF importer needs numpy (Debian: python3-numpy): OUT.no-numpy tells
        # the test to skip.
        open(out + ".no-numpy", "w").close()
        sys.exit(0)
    # Blender 3.4's glTF importer still uses `numpy.bool`, which numpy 1.24 removed.
    numpy.bool = bool
    bpy.ops.import_scene.gltf(filepath=model)

meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
for o in meshes:
    colours = o.data.color_attributes
    for slot in o.material_slots:
        tree = slot.material.node_tree
        nodes, links = tree.nodes, tree.links
        bsdf = next(n for n in nodes if n.type == "BSDF_PRINCIPLED")
        base = bsdf.inputs["Base Color"]
        colour = base.links[0].from_socket if base.links else None
        has_attribute = any(n.type == "VERTEX_COLOR" for n in nodes)
        if len(colours) and not has_attribute:
            attribute = nodes.new("ShaderNodeVertexColor")
            attribute.layer_name = colours[0].name
            multiply = nodes.new("ShaderNodeMixRGB")
            multiply.blend_type = "MULTIPLY"
            multiply.inputs["Fac"].default_value = 1.0
            if colour is None:
                multiply.inputs["Color1"].default_value = base.default_value
            else:
                links.new(colour, multiply.inputs["Color1"])
            links.new(attribute.outputs["Color"], multiply.inputs["Color2"])
            colour = multiply.outputs["Color"]
        emission = nodes.new("ShaderNodeEmission")
        emission.inputs["Strength"].default_value = 1.0
        if colour is None:
            emission.inputs["Color"].default_value = base.default_value
        else:
            links.new(colour, emission.inputs["Color"])
        output = next(n for n in nodes if n.type == "OUTPUT_MATERIAL")
        links.new(emission.outputs["Emission"], output.inputs["Surface"])

corners = [o.matrix_world @ Vector(c) for o in meshes for c in o.bound_box]
low = Vector((min(c.x for c in corners), min(c.y for c in corners), min(c.z for c in corners)))
high = Vector((max(c.x for c in corners), max(c.y for c in corners), max(c.z for c in corners)))
centre = (low + high) / 2
camera = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
bpy.context.scene.collection.objects.link(camera)
camera.data.type = "ORTHO"
camera.data.ortho_scale = max(high.x - low.x, high.z - low.z)
camera.location = (centre.x, low.y - 10.0, centre.z)
camera.rotation_euler = (1.5707963267948966, 0.0, 0.0)
camera.data.clip_end = 100.0

scene = bpy.context.scene
scene.camera = camera
scene.render.engine = "CYCLES"
scene.cycles.device = "CPU"
scene.cycles.samples = 64
scene.cycles.use_denoising = False
scene.cycles.pixel_filter_type = "BOX"
scene.cycles.filter_width = 1.0
scene.render.film_transparent = True
scene.render.dither_intensity = 0.0
scene.view_settings.view_transform = "Standard"
scene.view_settings.look = "None"
scene.render.resolution_x = scene.render.resolution_y = int(size)
scene.render.resolution_percentage = 100
scene.render.image_settings.file_format = "PNG"
scene.render.image_settings.color_mode = "RGBA"
scene.render.filepath = os.path.abspath(out)
bpy.ops.render.render(write_still=True)
