# Every animation of a SpriteFrames resource as Godot 3 sees it, as one JSON line: name, loop,
# speed, and per frame its resource name, size, region, margin, its atlas's path and size, and
# its metadata `points` (each as [x, y]; null without).
# Run with TRES=res://PATH.tres in a project whose images are imported.
extends SceneTree

func _init():
	var frames = load(OS.get_environment("TRES"))
	if frames == null:
		print("LOAD FAILED")
		quit(1)
		return
	var animations = []
	for name in frames.get_animation_names():
		var list = []
		for i in range(frames.get_frame_count(name)):
			var t = frames.get_frame(name, i)
			var atlas = t.atlas
			list.append({
				"name": t.resource_name,
				"size": [t.get_width(), t.get_height()],
				"region": [t.region.position.x, t.region.position.y, t.region.size.x, t.region.size.y],
				"margin": [t.margin.position.x, t.margin.position.y, t.margin.size.x, t.margin.size.y],
				"filter_clip": t.filter_clip,
				"atlas": atlas.resource_path if atlas != null else "",
				"atlas_size": [atlas.get_width(), atlas.get_height()] if atlas != null else [0, 0],
				"points": points_of(t),
			})
		animations.append({
			"name": name,
			"loop": frames.get_animation_loop(name),
			"speed": frames.get_animation_speed(name),
			"frames": list,
		})
	print(to_json({"animations": animations}))
	quit(0)

func points_of(texture):
	if not texture.has_meta("points"):
		return null
	var points = texture.get_meta("points")
	var out = {}
	for name in points:
		out[name] = [points[name].x, points[name].y]
	return out
