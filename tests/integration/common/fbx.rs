//! Small ASCII FBX files written by hand, for what no exporter at hand writes (in-between blend
//! shapes) and for hostile files that claim much with few bytes.

use std::fmt::Write as _;

/// FBX time units per second.
const KTIME_SECOND: u64 = 46_186_158_000;

/// One blend shape channel: its saved weight and its shapes.
pub struct Channel {
    /// `DeformPercent`: the weight, in percent.
    pub percent: f32,
    /// Its shapes, by ascending full weight.
    pub shapes: Vec<Shape>,
}

/// One shape of a channel.
pub struct Shape {
    /// The channel weight (percent) at which it is at full effect.
    pub full: f32,
    /// The offsets it gives: vertex index, offset.
    pub offsets: Vec<(u32, [f32; 3])>,
}

/// An animation stack `Raise`, from time 0.
pub struct Stack {
    /// Its length.
    pub seconds: f32,
    /// The first channel's weight (percent) at its start and end, linear between; `None`: it
    /// animates nothing.
    pub weight: Option<(f32, f32)>,
}

/// An ASCII FBX 7.4 (Y-up, metres, 30 fps) of one mesh node `Quad`: `polygons` (vertex indices,
/// counter-clockwise) over `vertices`, with one blend deformer of `channels`, and `stack`.
pub fn blend_shapes(
    vertices: &[[f32; 3]],
    polygons: &[Vec<u32>],
    channels: &[Channel],
    stack: Option<Stack>,
) -> String {
    let coordinates = |v: &[f32; 3]| v.map(|c| c.to_string());
    let mut fbx = Writer::default();
    fbx.mesh("Quad", vertices, polygons);
    fbx.connect(300, 100);
    fbx.objects.push_str("\tDeformer: 300, \"Deformer::Blend\", \"BlendShape\" {\n\t\tVersion: 100\n\t}\n");
    let mut id = 1000;
    for channel in channels {
        let channel_id = id;
        id += 1;
        let full: Vec<String> = channel.shapes.iter().map(|s| s.full.to_string()).collect();
        let _ = write!(
            fbx.objects,
            "\tDeformer: {channel_id}, \"SubDeformer::Channel{channel_id}\", \"BlendShapeChannel\" {{\n\t\tVersion: 100\n\t\tDeformPercent: {}\n\t\tFullWeights: *{} {{\n\t\t\ta: {}\n\t\t}}\n\t}}\n",
            channel.percent,
            full.len(),
            full.join(","),
        );
        fbx.connect(channel_id, 300);
        for shape in &channel.shapes {
            let _ = write!(fbx.objects, "\tGeometry: {id}, \"Geometry::Shape{id}\", \"Shape\" {{\n\t\tVersion: 100\n");
            fbx.objects.push_str(&array("Indexes", shape.offsets.iter().map(|o| o.0.to_string()).collect()));
            fbx.objects.push_str(&array("Vertices", shape.offsets.iter().flat_map(|o| coordinates(&o.1)).collect()));
            fbx.objects.push_str("\t}\n");
            fbx.connect(id, channel_id);
            id += 1;
        }
    }
    let Some(Stack { seconds, weight }) = stack else { return fbx.finish() };
    fbx.stack(500, "Raise", seconds);
    if let Some((from, to)) = weight {
        // The curve drives the first channel's weight.
        fbx.curve_node(520, "DeformPercent", &[("DeformPercent", from)], (1000, "DeformPercent"));
        fbx.curve(530, 520, "DeformPercent", &[(0.0, from), (seconds, to)]);
    }
    fbx.finish()
}

/// The two-root walk of [`super::walk`] as an ASCII FBX 7.4: a mesh node `Walker` skinned to
/// the sibling root joints `Feet` and `Body` (written in that order) and `Head` below `Body`,
/// and a stack `Walk` moving both roots. With `still_take_first`, as Mixamo writes its files:
/// a stack `Take 001` that moves nothing comes first, and the document names `Walk` active.
pub fn two_root_walk(still_take_first: bool) -> String {
    use super::walk::{BODY, FEET, HEAD, TIMES, VERTICES, head_at_rest, joint_of};
    let mut fbx = Writer::default();
    let triangles: Vec<Vec<u32>> = (0..VERTICES.len() as u32 / 3).map(|t| vec![3 * t, 3 * t + 1, 3 * t + 2]).collect();
    fbx.mesh("Walker", &VERTICES, &triangles);
    fbx.connect(400, 100);
    fbx.objects.push_str("\tDeformer: 400, \"Deformer::Skin\", \"Skin\" {\n\t\tVersion: 101\n\t}\n");
    // Joints: id, name, parent, rest translation (relative to the parent), bind place.
    let joints = [
        (300, "Feet", 0, FEET[0], FEET[0]),
        (310, "Body", 0, BODY[0], BODY[0]),
        (320, "Head", 310, HEAD, head_at_rest()),
    ];
    for (j, (id, name, parent, rest, bind)) in joints.into_iter().enumerate() {
        let [x, y, z] = rest;
        let _ = write!(
            fbx.objects,
            "\tModel: {id}, \"Model::{name}\", \"LimbNode\" {{\n\t\tVersion: 232\n\t\tProperties70:  {{\n\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",{x},{y},{z}\n\t\t}}\n\t}}\n"
        );
        fbx.connect(id, parent);
        // A cluster binds the joint's vertices wholly: `TransformLink` is the joint's bind place
        // in the world, `Transform` takes the mesh (at the origin) into the joint's space.
        let cluster = id + 1000;
        let indices: Vec<String> = (0..VERTICES.len()).filter(|&v| joint_of(v) == j).map(|v| v.to_string()).collect();
        let translation = |t: [f32; 3]| {
            let columns = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, t[0], t[1], t[2], 1.0];
            columns.map(|c: f32| c.to_string()).to_vec()
        };
        let _ =
            write!(fbx.objects, "\tDeformer: {cluster}, \"SubDeformer::{name}\", \"Cluster\" {{\n\t\tVersion: 100\n");
        fbx.objects.push_str(&array("Indexes", indices.clone()));
        fbx.objects.push_str(&array("Weights", vec!["1".to_string(); indices.len()]));
        fbx.objects.push_str(&array("Transform", translation(bind.map(|c| -c))));
        fbx.objects.push_str(&array("TransformLink", translation(bind)));
        fbx.objects.push_str("\t}\n");
        fbx.connect(cluster, 400);
        fbx.connect(id, cluster);
    }
    let seconds = TIMES[TIMES.len() - 1];
    if still_take_first {
        fbx.stack(800, "Take 001", seconds);
        fbx.active_stack("Walk");
    }
    fbx.stack(500, "Walk", seconds);
    for (k, (target, keys)) in [(300, FEET), (310, BODY)].into_iter().enumerate() {
        let node = 600 + 100 * k as u64;
        let [x, y, z] = keys[0];
        fbx.curve_node(node, "T", &[("X", x), ("Y", y), ("Z", z)], (target, "Lcl Translation"));
        for (c, axis) in ["X", "Y", "Z"].into_iter().enumerate() {
            let curve: Vec<(f32, f32)> = TIMES.iter().zip(&keys).map(|(&t, p)| (t, p[c])).collect();
            fbx.curve(node + 10 + c as u64, node, axis, &curve);
        }
    }
    fbx.finish()
}

/// An FBX array property: `name: *count { a: values }`.
fn array(name: &str, values: Vec<String>) -> String {
    format!("\t\t{name}: *{} {{\n\t\t\ta: {}\n\t\t}}\n", values.len(), values.join(","))
}

/// FBX time units for `seconds`.
fn ktime(seconds: f32) -> u64 {
    (f64::from(seconds) * KTIME_SECOND as f64).round() as u64
}

/// An FBX file being written: its objects and their connections, in the order they are added.
/// A mesh of one star-shaped (so concave) polygon of `corners` corners, in the x/y plane.
pub fn star_polygon(corners: usize) -> String {
    let point = |i: usize| {
        let (angle, radius) =
            (i as f32 / corners as f32 * std::f32::consts::TAU, if i.is_multiple_of(2) { 1.0 } else { 0.6 });
        [radius * angle.cos(), radius * angle.sin(), 0.0]
    };
    let vertices: Vec<[f32; 3]> = (0..corners).map(point).collect();
    let mut file = Writer::default();
    file.mesh("star", &vertices, &[(0..corners as u32).collect()]);
    file.finish()
}

#[derive(Default)]
struct Writer {
    /// The `Documents` section, when the file names an active stack.
    documents: String,
    objects: String,
    connections: String,
}

impl Writer {
    /// Connects object `child` to object `parent` (0: the scene's root).
    fn connect(&mut self, child: u64, parent: u64) {
        let _ = writeln!(self.connections, "\tC: \"OO\",{child},{parent}");
    }

    /// Connects object `child` to property `property` of object `parent`.
    fn connect_property(&mut self, child: u64, parent: u64, property: &str) {
        let _ = writeln!(self.connections, "\tC: \"OP\",{child},{parent}, \"{property}\"");
    }

    /// Mesh node `name` (id 200) at the root, its geometry (id 100) of `polygons` (vertex
    /// indices, counter-clockwise) over `vertices`.
    fn mesh(&mut self, name: &str, vertices: &[[f32; 3]], polygons: &[Vec<u32>]) {
        let coordinates = |v: &[f32; 3]| v.map(|c| c.to_string());
        let corners: Vec<String> = polygons
            .iter()
            .flat_map(|p| {
                // The last index of a polygon is written as -(index + 1).
                p.iter()
                    .enumerate()
                    .map(|(i, &v)| if i + 1 == p.len() { format!("{}", -(v as i64) - 1) } else { v.to_string() })
            })
            .collect();
        let _ = writeln!(self.objects, "\tGeometry: 100, \"Geometry::{name}\", \"Mesh\" {{");
        self.objects.push_str(&array("Vertices", vertices.iter().flat_map(coordinates).collect()));
        self.objects.push_str(&array("PolygonVertexIndex", corners));
        let _ = write!(self.objects, "\t}}\n\tModel: 200, \"Model::{name}\", \"Mesh\" {{\n\t\tVersion: 232\n\t}}\n");
        self.connect(200, 0);
        self.connect(100, 200);
    }

    /// Animation stack `name` (object `id`, from time 0, `seconds` long) with its one layer
    /// (object `id + 10`), which every curve node joins.
    fn stack(&mut self, id: u64, name: &str, seconds: f32) {
        let _ = write!(
            self.objects,
            "\tAnimationStack: {id}, \"AnimStack::{name}\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"LocalStart\", \"KTime\", \"Time\", \"\",0\n\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",{}\n\t\t}}\n\t}}\n\
             \tAnimationLayer: {}, \"AnimLayer::Base\", \"\" {{\n\t}}\n",
            ktime(seconds),
            id + 10,
        );
        self.connect(id + 10, id);
    }

    /// Curve node `id` named `name` in the layer of stack 500, animating property `target.1` of
    /// object `target.0`: its channels with their values when no curve drives them.
    fn curve_node(&mut self, id: u64, name: &str, channels: &[(&str, f32)], target: (u64, &str)) {
        let _ = write!(
            self.objects,
            "\tAnimationCurveNode: {id}, \"AnimCurveNode::{name}\", \"\" {{\n\t\tProperties70:  {{\n"
        );
        for (channel, value) in channels {
            let _ = writeln!(self.objects, "\t\t\tP: \"d|{channel}\", \"Number\", \"\", \"A\",{value}");
        }
        self.objects.push_str("\t\t}\n\t}\n");
        self.connect(id, 510);
        self.connect_property(id, target.0, target.1);
    }

    /// Linear curve `id` of `keys` (seconds, value) driving channel `channel` of curve node `node`.
    fn curve(&mut self, id: u64, node: u64, channel: &str, keys: &[(f32, f32)]) {
        let default = keys.first().map_or(0.0, |k| k.1);
        let _ = write!(
            self.objects,
            "\tAnimationCurve: {id}, \"AnimCurve::\", \"\" {{\n\t\tDefault: {default}\n\t\tKeyVer: 4009\n\
             {}{}\t\tKeyAttrFlags: *1 {{\n\t\t\ta: 4\n\t\t}}\n\t\tKeyAttrDataFloat: *4 {{\n\t\t\ta: 0,0,0,0\n\t\t}}\n\t\tKeyAttrRefCount: *1 {{\n\t\t\ta: {}\n\t\t}}\n\t}}\n",
            array("KeyTime", keys.iter().map(|k| ktime(k.0).to_string()).collect()),
            array("KeyValueFloat", keys.iter().map(|k| k.1.to_string()).collect()),
            keys.len(),
        );
        self.connect_property(id, node, &format!("d|{channel}"));
    }

    /// Names stack `name` the file's active one, as the FBX SDK writes it.
    fn active_stack(&mut self, name: &str) {
        self.documents = format!(
            "Documents:  {{\n\tCount: 1\n\tDocument: 900, \"Scene\", \"Scene\" {{\n\t\tProperties70:  {{\n\
             \t\t\tP: \"SourceObject\", \"object\", \"\", \"\"\n\
             \t\t\tP: \"ActiveAnimStackName\", \"KString\", \"\", \"\", \"{name}\"\n\t\t}}\n\t\tRootNode: 0\n\t}}\n}}\n"
        );
    }

    /// The finished file.
    fn finish(self) -> String {
        document(&self.documents, &self.objects, &self.connections)
    }
}

/// The FBX file of `documents` (empty: none), `objects` and `connections`.
fn document(documents: &str, objects: &str, connections: &str) -> String {
    format!(
        "; FBX 7.4.0 project file\nFBXHeaderExtension:  {{\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}}\n\
         GlobalSettings:  {{\n\tVersion: 1000\n\tProperties70:  {{\n\
         \t\tP: \"UpAxis\", \"int\", \"Integer\", \"\",1\n\t\tP: \"UpAxisSign\", \"int\", \"Integer\", \"\",1\n\
         \t\tP: \"FrontAxis\", \"int\", \"Integer\", \"\",2\n\t\tP: \"FrontAxisSign\", \"int\", \"Integer\", \"\",1\n\
         \t\tP: \"CoordAxis\", \"int\", \"Integer\", \"\",0\n\t\tP: \"CoordAxisSign\", \"int\", \"Integer\", \"\",1\n\
         \t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",100\n\t\tP: \"TimeMode\", \"enum\", \"\", \"\",6\n\
         \t}}\n}}\n{documents}Objects:  {{\n{objects}}}\nConnections:  {{\n{connections}}}\n"
    )
}
