# A sprite scene as Godot 3 sees it, as one JSON line: the scene's root node type, its
# animation, whether it plays, `centered`, `offset`, `flip_h` and the size of its first frame.
# Run with SCENE=res://PATH.tscn in a project whose images are imported. With PLAY=NAME the
# node is put in the tree, plays that animation and is reported after two frames have run
# (its script, if it has one, has processed them).
extends SceneTree

var node
var frames_to_run = 2

func _init():
	var packed = load(OS.get_environment("SCENE"))
	if packed == null:
		print("LOAD FAILED")
		quit(1)
		return
	node = packed.instance()
	var play = OS.get_environment("PLAY")
	if play == "":
		report()
		return
	get_root().add_child(node)
	node.play(play)

func _idle(_delta):
	if node == null or not node.is_inside_tree():
		return false
	frames_to_run -= 1
	if frames_to_run == 0:
		report()
	return false

func report():
	var texture = node.frames.get_frame(node.animation, 0)
	print(to_json({
		"type": node.get_class(),
		"animation": node.animation,
		"playing": node.playing,
		"centered": node.centered,
		"offset": [node.offset.x, node.offset.y],
		"flip_h": node.flip_h,
		"frame_size": [texture.get_width(), texture.get_height()],
	}))
	node.queue_free()
	quit(0)
