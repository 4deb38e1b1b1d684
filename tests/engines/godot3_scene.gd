# A sprite scene as Godot 3 sees it, as one JSON line: the scene's root node type, its
# animation, whether it plays, `centered`, `offset`, and the size of its first frame.
# Run with SCENE=res://PATH.tscn in a project whose images are imported.
extends SceneTree

func _init():
	var packed = load(OS.get_environment("SCENE"))
	if packed == null:
		print("LOAD FAILED")
		quit(1)
		return
	var node = packed.instance()
	var texture = node.frames.get_frame(node.animation, 0)
	print(to_json({
		"type": node.get_class(),
		"animation": node.animation,
		"playing": node.playing,
		"centered": node.centered,
		"offset": [node.offset.x, node.offset.y],
		"frame_size": [texture.get_width(), texture.get_height()],
	}))
	node.free()
	quit(0)
