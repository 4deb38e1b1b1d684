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
    let array = |name: &str, values: Vec<String>| {
        format!("\t\t{name}: *{} {{\n\t\t\ta: {}\n\t\t}}\n", values.len(), values.join(","))
    };
    let coordinates = |v: &[f32; 3]| v.map(|c| c.to_string());
    let mut objects = String::new();
    let mut connections = String::from("\tC: \"OO\",200,0\n\tC: \"OO\",100,200\n\tC: \"OO\",300,100\n");
    let corners: Vec<String> = polygons
        .iter()
        .flat_map(|p| {
            // The last index of a polygon is written as -(index + 1).
            p.iter()
                .enumerate()
                .map(|(i, &v)| if i + 1 == p.len() { format!("{}", -(v as i64) - 1) } else { v.to_string() })
        })
        .collect();
    objects.push_str("\tGeometry: 100, \"Geometry::Quad\", \"Mesh\" {\n");
    objects.push_str(&array("Vertices", vertices.iter().flat_map(coordinates).collect()));
    objects.push_str(&array("PolygonVertexIndex", corners));
    objects.push_str("\t}\n\tModel: 200, \"Model::Quad\", \"Mesh\" {\n\t\tVersion: 232\n\t}\n");
    objects.push_str("\tDeformer: 300, \"Deformer::Blend\", \"BlendShape\" {\n\t\tVersion: 100\n\t}\n");
    let mut id = 1000;
    for channel in channels {
        let channel_id = id;
        id += 1;
        let full: Vec<String> = channel.shapes.iter().map(|s| s.full.to_string()).collect();
        let _ = write!(
            objects,
            "\tDeformer: {channel_id}, \"SubDeformer::Channel{channel_id}\", \"BlendShapeChannel\" {{\n\t\tVersion: 100\n\t\tDeformPercent: {}\n\t\tFullWeights: *{} {{\n\t\t\ta: {}\n\t\t}}\n\t}}\n",
            channel.percent,
            full.len(),
            full.join(","),
        );
        let _ = writeln!(connections, "\tC: \"OO\",{channel_id},300");
        for shape in &channel.shapes {
            let _ = write!(objects, "\tGeometry: {id}, \"Geometry::Shape{id}\", \"Shape\" {{\n\t\tVersion: 100\n");
            objects.push_str(&array("Indexes", shape.offsets.iter().map(|o| o.0.to_string()).collect()));
            objects.push_str(&array("Vertices", shape.offsets.iter().flat_map(|o| coordinates(&o.1)).collect()));
            objects.push_str("\t}\n");
            let _ = writeln!(connections, "\tC: \"OO\",{id},{channel_id}");
            id += 1;
        }
    }
    let Some(Stack { seconds, weight }) = stack else { return document(&objects, &connections) };
    let end = (f64::from(seconds) * KTIME_SECOND as f64).round() as u64;
    let _ = write!(
        objects,
        "\tAnimationStack: 500, \"AnimStack::Raise\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"LocalStart\", \"KTime\", \"Time\", \"\",0\n\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",{end}\n\t\t}}\n\t}}\n\
             \tAnimationLayer: 510, \"AnimLayer::Base\", \"\" {{\n\t}}\n"
    );
    connections.push_str("\tC: \"OO\",510,500\n");
    if let Some((from, to)) = weight {
        let _ = write!(
            objects,
            "\tAnimationCurveNode: 520, \"AnimCurveNode::DeformPercent\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \"d|DeformPercent\", \"Number\", \"\", \"A\",{from}\n\t\t}}\n\t}}\n\
             \tAnimationCurve: 530, \"AnimCurve::\", \"\" {{\n\t\tDefault: {from}\n\t\tKeyVer: 4009\n\
             {}{}\t\tKeyAttrFlags: *1 {{\n\t\t\ta: 4\n\t\t}}\n\t\tKeyAttrDataFloat: *4 {{\n\t\t\ta: 0,0,0,0\n\t\t}}\n\t\tKeyAttrRefCount: *1 {{\n\t\t\ta: 2\n\t\t}}\n\t}}\n",
            array("KeyTime", vec!["0".into(), end.to_string()]),
            array("KeyValueFloat", vec![from.to_string(), to.to_string()]),
        );
        // The curve drives the first channel's weight.
        connections.push_str("\tC: \"OO\",520,510\n");
        connections.push_str("\tC: \"OP\",520,1000, \"DeformPercent\"\n\tC: \"OP\",530,520, \"d|DeformPercent\"\n");
    }
    document(&objects, &connections)
}

/// The FBX file of `objects` and `connections`.
fn document(objects: &str, connections: &str) -> String {
    format!(
        "; FBX 7.4.0 project file\nFBXHeaderExtension:  {{\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}}\n\
         GlobalSettings:  {{\n\tVersion: 1000\n\tProperties70:  {{\n\
         \t\tP: \"UpAxis\", \"int\", \"Integer\", \"\",1\n\t\tP: \"UpAxisSign\", \"int\", \"Integer\", \"\",1\n\
         \t\tP: \"FrontAxis\", \"int\", \"Integer\", \"\",2\n\t\tP: \"FrontAxisSign\", \"int\", \"Integer\", \"\",1\n\
         \t\tP: \"CoordAxis\", \"int\", \"Integer\", \"\",0\n\t\tP: \"CoordAxisSign\", \"int\", \"Integer\", \"\",1\n\
         \t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",100\n\t\tP: \"TimeMode\", \"enum\", \"\", \"\",6\n\
         \t}}\n}}\nObjects:  {{\n{objects}}}\nConnections:  {{\n{connections}}}\n"
    )
}
