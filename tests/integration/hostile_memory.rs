//! Kilobytes in, never gigabytes of memory (issue 16): small generated files that declare huge
//! textures, animations or images, each run through the binary under a 1 GiB address-space
//! limit (`ulimit -v 1048576`, set by the test itself), end in one error line naming the
//! budget, exit 2, and write nothing; batches report the bad model and go on.
//!
//! One library-level case counts allocations instead (the shared-skin re-read allocates and
//! frees, so no peak shows it), with the test binary's per-thread counting allocator
//! ([`crate::common::alloc`]).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common;
use crate::common::alloc::allocated_during;
use crate::common::cli::names_in;

/// Runs the binary with a 1 GiB address-space limit.
fn run_limited(args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_spritebake"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    common::cli::scratch_in("memory", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Asserts a refused command: exit 2, exactly one `error:` line on stderr containing every
/// word, no panic.
fn assert_refused(o: &Output, words: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stdout: {}\nstderr: {err}", stdout(o));
    let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("warning:")).collect();
    assert_eq!(lines.len(), 1, "one error line expected: {err}");
    assert!(lines[0].starts_with("error: "), "{err}");
    for w in words {
        assert!(lines[0].contains(w), "'{w}' missing from: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

/// A textured quad `<stem>.obj` + `<stem>.mtl` naming `texture`.
fn quad(dir: &Path, stem: &str, texture: &str) -> PathBuf {
    let obj = format!(
        "mtllib {stem}.mtl\nv -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nusemtl skin\nf 1/1 2/2 3/3 4/4\n"
    );
    std::fs::write(dir.join(format!("{stem}.obj")), obj).unwrap();
    std::fs::write(dir.join(format!("{stem}.mtl")), format!("newmtl skin\nmap_Kd {texture}\n")).unwrap();
    dir.join(format!("{stem}.obj"))
}

/// A 1 KiB BMP whose header declares `side`² 24-bit texels (the pixel data is missing).
fn bmp_declaring(side: u32) -> Vec<u8> {
    let mut b = b"BM".to_vec();
    b.extend_from_slice(&(54 + side * side * 3).to_le_bytes()); // file size as declared
    b.extend_from_slice(&[0; 4]);
    b.extend_from_slice(&54u32.to_le_bytes()); // pixel data offset
    b.extend_from_slice(&40u32.to_le_bytes()); // BITMAPINFOHEADER
    b.extend_from_slice(&(side as i32).to_le_bytes());
    b.extend_from_slice(&(side as i32).to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes()); // planes
    b.extend_from_slice(&24u16.to_le_bytes()); // bits per pixel
    b.extend_from_slice(&[0; 24]); // no compression, sizes and palette counts 0
    b.resize(1024, 0);
    b
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let mut body = kind.to_vec();
    body.extend_from_slice(data);
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32(&body).to_be_bytes());
}

/// A tiny PNG whose header declares `side`² RGBA pixels (its data stops after a few rows).
fn png_declaring(side: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = side.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&side.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]); // 8-bit RGBA
    png_chunk(&mut png, b"IHDR", &ihdr);
    // A zlib stream of stored blocks of zeros: valid, short, far from the declared size.
    let mut idat = vec![0x78, 0x01];
    for last in [false, true] {
        idat.push(u8::from(last));
        idat.extend_from_slice(&4096u16.to_le_bytes());
        idat.extend_from_slice(&(!4096u16).to_le_bytes());
        idat.extend_from_slice(&[0; 4096]);
    }
    png_chunk(&mut png, b"IDAT", &idat);
    png_chunk(&mut png, b"IEND", &[]);
    png
}

/// An MD2 of one file vertex, `sts` texture coordinates, triangles using each of them once
/// (so unwelding makes `sts` render vertices) and `frames` frames: about 600 KB declaring
/// 4096 × 50 000 positions and normals (4.6 GiB).
fn md2_unwelding(sts: usize, frames: usize) -> Vec<u8> {
    let tris = sts.div_ceil(3);
    let (ofs_st, frame_size) = (68, 40 + 4);
    let ofs_tris = ofs_st + 4 * sts;
    let ofs_frames = ofs_tris + 12 * tris;
    let ofs_end = ofs_frames + frame_size * frames;
    let mut b = b"IDP2".to_vec();
    let header =
        [8, 64, 64, frame_size, 0, 1, sts, tris, 0, frames, 68, ofs_st, ofs_tris, ofs_frames, ofs_end, ofs_end];
    for v in header {
        b.extend_from_slice(&(v as i32).to_le_bytes());
    }
    for s in 0..sts {
        b.extend_from_slice(&((s % 64) as u16).to_le_bytes());
        b.extend_from_slice(&((s / 64) as u16).to_le_bytes());
    }
    for t in 0..tris {
        let st = |k: usize| ((3 * t + k).min(sts - 1) as u16).to_le_bytes();
        b.extend_from_slice(&[0; 6]); // vertex 0 at every corner
        for k in 0..3 {
            b.extend_from_slice(&st(k));
        }
    }
    for _ in 0..frames {
        b.extend_from_slice(&1f32.to_le_bytes().repeat(3)); // scale
        b.extend_from_slice(&[0; 12 + 16 + 4]); // translate, name, the vertex
    }
    b
}

/// An MD5 mesh of `joints` root joints and one triangle on joint 0.
fn md5_mesh(joints: usize) -> String {
    let mut t = format!("MD5Version 10\ncommandline \"\"\nnumJoints {joints}\nnumMeshes 1\njoints {{\n");
    for j in 0..joints {
        t.push_str(&format!("\"j{j}\" -1 ( 0 0 0 ) ( 0 0 0 )\n"));
    }
    t.push_str("}\nmesh {\nshader \"skin\"\nnumverts 3\n");
    for (v, u) in ["0 0", "1 0", "0 1"].iter().enumerate() {
        t.push_str(&format!("vert {v} ( {u} ) {v} 1\n"));
    }
    t.push_str("numtris 1\ntri 0 0 1 2\nnumweights 3\n");
    for (w, p) in ["0 0 0", "0 10 0", "0 0 10"].iter().enumerate() {
        t.push_str(&format!("weight {w} 0 1 ( {p} )\n"));
    }
    t.push_str("}\n");
    t
}

/// An `.md5anim` for [`md5_mesh`] declaring `frames` frames (each empty: no animated components).
fn md5_anim(joints: usize, frames: usize) -> String {
    let mut t = format!(
        "MD5Version 10\ncommandline \"\"\nnumFrames {frames}\nnumJoints {joints}\nframeRate 24\nnumAnimatedComponents 0\nhierarchy {{\n"
    );
    for j in 0..joints {
        t.push_str(&format!("\"j{j}\" -1 0 0\n"));
    }
    t.push_str("}\nbounds {\n");
    t.push_str(&"( 0 0 0 ) ( 1 1 1 )\n".repeat(frames));
    t.push_str("}\nbaseframe {\n");
    t.push_str(&"( 0 0 0 ) ( 0 0 0 )\n".repeat(joints));
    t.push_str("}\n");
    for f in 0..frames {
        t.push_str(&format!("frame {f} {{\n}}\n"));
    }
    t
}

/// SMD nodes block of `bones` root bones.
fn smd_nodes(bones: usize) -> String {
    let mut t = "version 1\nnodes\n".to_string();
    for b in 0..bones {
        t.push_str(&format!("{b} \"b{b}\" -1\n"));
    }
    t.push_str("end\n");
    t
}

/// A reference SMD: `bones` bones, one triangle on bone 0.
fn smd_reference(bones: usize) -> String {
    let mut t = smd_nodes(bones);
    t.push_str("skeleton\ntime 0\n0 0 0 0 0 0 0\nend\ntriangles\nskin\n");
    for p in ["0 0 0", "0 10 0", "0 0 10"] {
        t.push_str(&format!("0 {p} 1 0 0 0 0\n"));
    }
    t.push_str("end\n");
    t
}

/// A sequence SMD for [`smd_reference`] with `frames` empty `time` blocks.
fn smd_sequence(bones: usize, frames: usize) -> String {
    let mut t = smd_nodes(bones);
    t.push_str("skeleton\n");
    for f in 0..frames {
        t.push_str(&format!("time {f}\n"));
    }
    t.push_str("end\n");
    t
}

/// A glTF (JSON, embedded buffer) with one node and a translation channel keyed at 0 and
/// `last` seconds.
fn gltf_keyed(last: f32) -> String {
    gltf_keyed_clips(last, 1)
}

/// As [`gltf_keyed`] with `clips` animations (`slide`, `slide1`, ...) sharing the keys.
fn gltf_keyed_clips(last: f32, clips: usize) -> String {
    use base64::Engine as _;
    let mut bin = Vec::new();
    // A triangle (3 × vec3), key times (2 floats), translations (2 × vec3).
    for v in [0f32, 0., 0., 1., 0., 0., 0., 1., 0., 0., last, 0., 0., 0., 1., 0., 0.] {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    let data = base64::engine::general_purpose::STANDARD.encode(&bin);
    format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],
"nodes":[{{"mesh":0}}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
"buffers":[{{"byteLength":{len},"uri":"data:application/octet-stream;base64,{data}"}}],
"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":8}},{{"buffer":0,"byteOffset":44,"byteLength":24}}],
"accessors":[
 {{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
 {{"bufferView":1,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[{last}]}},
 {{"bufferView":2,"componentType":5126,"count":2,"type":"VEC3"}}],
"animations":[{animations}]}}"#,
        len = bin.len(),
        animations = (0..clips)
            .map(|i| {
                let name = if i == 0 { "slide".to_string() } else { format!("slide{i}") };
                format!(
                    r#"{{"name":"{name}","channels":[{{"sampler":0,"target":{{"node":0,"path":"translation"}}}}],
 "samplers":[{{"input":1,"output":2}}]}}"#
                )
            })
            .collect::<Vec<_>>()
            .join(",")
    )
}

#[test]
fn kilobytes_in_never_gigabytes_of_memory_textures() {
    let dir = scratch("bmp");
    std::fs::write(dir.join("big.bmp"), bmp_declaring(8192)).unwrap();
    let model = quad(&dir, "m", "big.bmp");
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    let png = out.join("m.png");
    let o = run_limited(&["render", s(&model), "-o", s(&png)]);
    assert_refused(&o, &["big.bmp", "8192x8192", "MiB, over the 256 MiB budget", "--max-memory-mib"]);
    assert!(names_in(&out).is_empty(), "{:?}", names_in(&out));
    // The budget is what refused it: raised, the header passes and the missing pixel data
    // is what fails (the fallback texture and a warning).
    let o = run_limited(&["render", s(&model), "--max-memory-mib", "2048", "--size", "16", "-o", s(&png)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: texture 'big.bmp'"), "{}", stderr(&o));
    assert_eq!(names_in(&out), ["m.png"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn kilobytes_in_never_gigabytes_of_memory_animations() {
    let dir = scratch("anims");
    // MD5: 6000 frames of 4096 joints in under half a megabyte of text: 1.1 GiB of poses.
    std::fs::write(dir.join("rig.md5mesh"), md5_mesh(4096)).unwrap();
    let anim = md5_anim(4096, 6000);
    assert!(anim.len() < 500_000, "{}", anim.len());
    std::fs::write(dir.join("long.md5anim"), anim).unwrap();
    // SMD: 6000 `time` lines of a 4000-bone skeleton in about 100 KB: 1.1 GiB of poses.
    std::fs::write(dir.join("ref.smd"), smd_reference(4000)).unwrap();
    let sequence = smd_sequence(4000, 6000);
    assert!(sequence.len() < 150_000, "{}", sequence.len());
    std::fs::write(dir.join("long.smd"), sequence).unwrap();
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    let cases = [
        ("rig.md5mesh", "long.md5anim", "6000 frames x 4096 joints"),
        ("ref.smd", "long.smd", "6000 frames x 4000 bones"),
    ];
    for (model, anim, words) in cases {
        for command in ["render", "sheet"] {
            let o =
                run_limited(&[command, s(&dir.join(model)), "--anim", s(&dir.join(anim)), "-o", s(&out.join("x.png"))]);
            assert_refused(&o, &[anim, words, "over the 256 MiB budget", "--max-memory-mib"]);
        }
    }
    assert!(names_in(&out).is_empty(), "{:?}", names_in(&out));
    std::fs::remove_dir_all(dir).unwrap();
}

/// An IQM of `joints` root joints, no vertices, and one anim `bomb` of `frames` frames that
/// animate no channel (so the frames take no bytes in the file): about 140 bytes a joint,
/// declaring `frames` × `joints` joint poses.
pub fn iqm_anim_bomb(joints: u32, frames: u32) -> Vec<u8> {
    let mut b = vec![0u8; 124];
    b.extend_from_slice(b"\0bomb\0\0\0");
    let words = |b: &mut Vec<u8>, values: &[u32]| values.iter().for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
    let floats = |b: &mut Vec<u8>, values: &[f32]| values.iter().for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
    // One position array of no vertices.
    words(&mut b, &[0, 0, 7, 3, 152]);
    let ofs_joints = b.len() as u32;
    for _ in 0..joints {
        words(&mut b, &[0, u32::MAX]);
        floats(&mut b, &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
    }
    let ofs_poses = b.len() as u32;
    for _ in 0..joints {
        words(&mut b, &[u32::MAX, 0]);
        floats(&mut b, &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
        floats(&mut b, &[0.0; 10]);
    }
    let ofs_anims = b.len() as u32;
    words(&mut b, &[1, 0, frames]);
    floats(&mut b, &[24.0]);
    words(&mut b, &[1]);
    let len = b.len() as u32;
    let header = [
        2, len, 0, 8, 124, 0, 0, 1, 0, 132, 0, 0, 0, joints, ofs_joints, joints, ofs_poses, 1, ofs_anims, frames, 0,
        len, 0, 0, 0, 0, 0,
    ];
    b[..16].copy_from_slice(b"INTERQUAKEMODEL\0");
    for (i, v) in header.iter().enumerate() {
        b[16 + 4 * i..20 + 4 * i].copy_from_slice(&v.to_le_bytes());
    }
    b
}

#[test]
fn kilobytes_in_never_gigabytes_of_memory_iqm_frames() {
    let dir = scratch("iqm");
    // 9 KB declaring ten million frames of 64 joints (about 30 GB of poses).
    let bomb = iqm_anim_bomb(64, 10_000_000);
    assert!(bomb.len() < 10_000, "{}", bomb.len());
    std::fs::write(dir.join("bomb.iqm"), &bomb).unwrap();
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    let o = run_limited(&["info", s(&dir.join("bomb.iqm"))]);
    assert_refused(&o, &["bomb.iqm", "anim 'bomb': 10000000 frames x 64 joints", "256 MiB budget", "--max-memory-mib"]);
    // The same file with a hundred frames loads.
    std::fs::write(dir.join("few.iqm"), iqm_anim_bomb(64, 100)).unwrap();
    let o = run_limited(&["info", s(&dir.join("few.iqm"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("'bomb': 100 frames"), "{}", stdout(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

/// `blend_additive.mdl` (one bone) with its sequence table replaced by `count` copies of its
/// sequence, each claiming 65536 frames of constant channels (12 zero bytes).
fn half_life_sequence_bomb(model: &[u8], count: usize) -> Vec<u8> {
    let field = |b: &[u8], at: usize| i32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
    let table = field(model, 168);
    let mut sequence = model[table..table + 176].to_vec();
    sequence[56..60].copy_from_slice(&65536i32.to_le_bytes());
    sequence[124..128].copy_from_slice(&(model.len() as i32).to_le_bytes());
    let mut bomb = model.to_vec();
    bomb.extend_from_slice(&[0; 12]);
    let at = bomb.len();
    bomb.extend(sequence.repeat(count));
    bomb[164..172].copy_from_slice(&[count as i32, at as i32].map(i32::to_le_bytes).concat());
    bomb
}

#[test]
fn kilobytes_in_never_gigabytes_of_memory_half_life_sequences() {
    let Some(corpus) = common::corpus("mdl/hl1") else { return };
    let model = std::fs::read(corpus.join("blend_additive.mdl")).unwrap();
    let dir = scratch("studio");
    // 700 KB: 4096 sequences of 65536 frames, about 20 GB of poses.
    std::fs::write(dir.join("bomb.mdl"), half_life_sequence_bomb(&model, 4096)).unwrap();
    let o = run_limited(&["info", s(&dir.join("bomb.mdl"))]);
    assert_refused(&o, &["bomb.mdl", "Half-Life MDL", "65536 frames x 1 bones", "256 MiB budget", "--max-memory-mib"]);
    // Three of them load.
    std::fs::write(dir.join("few.mdl"), half_life_sequence_bomb(&model, 3)).unwrap();
    let o = run_limited(&["info", s(&dir.join("few.mdl"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("'idle_2': 65536 frames"), "{}", stdout(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn kilobytes_in_never_gigabytes_of_memory_quake3_players() {
    use crate::formats_md3::md3_of;
    // A player's head is placed in every frame its clips add up to: a 500 KB head of 60,000
    // vertices under 25 clips of 600 frames (tiny legs and torso) would be 21 GB of frames.
    let dir = scratch("md3");
    let zero = glam::Vec3::ZERO;
    std::fs::write(dir.join("lower.md3"), md3_of("legs", 600, 3, &[("tag_torso", zero)])).unwrap();
    std::fs::write(dir.join("upper.md3"), md3_of("torso", 600, 3, &[("tag_head", zero)])).unwrap();
    std::fs::write(dir.join("head.md3"), md3_of("head", 1, 60_000, &[])).unwrap();
    std::fs::write(dir.join("animation.cfg"), "0 600 0 10\n".repeat(25)).unwrap();
    let o = run_limited(&["info", s(&dir.join("animation.cfg"))]);
    assert_refused(
        &o,
        &["animation.cfg", "15000 joined frames x 60006 vertices", "256 MiB budget", "--max-memory-mib"],
    );
    // With clips of 2 frames (50 joined frames, 72 MB) it loads.
    std::fs::write(dir.join("animation.cfg"), "0 2 0 10\n".repeat(25)).unwrap();
    let o = run_limited(&["info", s(&dir.join("animation.cfg"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_quake_1_mdl_declaring_a_skin_it_does_not_hold_is_refused_at_the_skin() {
    let dir = scratch("mdl");
    // A 1 KiB MDL whose header declares an 8192² skin (64 MiB of texels, 1 GiB prepared).
    let mut mdl = b"IDPO".to_vec();
    mdl.extend_from_slice(&6i32.to_le_bytes());
    [1.0f32, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0].iter().for_each(|v| mdl.extend_from_slice(&v.to_le_bytes()));
    [1i32, 8192, 8192, 3, 1, 1, 0, 0].iter().for_each(|v| mdl.extend_from_slice(&v.to_le_bytes()));
    mdl.extend_from_slice(&1.0f32.to_le_bytes());
    mdl.resize(1024, 0);
    std::fs::write(dir.join("skin.mdl"), &mdl).unwrap();
    let o = run_limited(&["info", s(&dir.join("skin.mdl"))]);
    assert_refused(&o, &["skin.mdl", "MDL byte offset 84", "skin 0 image", "run past the end"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn kilobytes_in_never_gigabytes_of_memory_md2_frames() {
    let dir = scratch("md2");
    let md2 = md2_unwelding(50_000, 4096);
    assert!(md2.len() < 700_000, "{}", md2.len());
    std::fs::write(dir.join("unweld.md2"), &md2).unwrap();
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    let o = run_limited(&["render", s(&dir.join("unweld.md2")), "-o", s(&out.join("x.png"))]);
    assert_refused(&o, &["unweld.md2", "4096 frames x 50000 vertices", "over the 256 MiB budget", "--max-memory-mib"]);
    assert!(names_in(&out).is_empty(), "{:?}", names_in(&out));
    // The same layout with 8 frames loads and renders.
    std::fs::write(dir.join("few.md2"), md2_unwelding(50_000, 8)).unwrap();
    let o = run_limited(&["render", s(&dir.join("few.md2")), "--size", "16", "-o", s(&out.join("few.png"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(names_in(&out), ["few.png"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn kilobytes_in_never_gigabytes_of_memory_meshes() {
    let dir = scratch("meshes");
    // glTF: a 1000-vertex mesh instanced by 8000 nodes (8 million vertices, just inside the
    // structural cap) in about 150 KB of JSON.
    let nodes = vec![r#"{"mesh":0}"#; 8000].join(",");
    let scene = (0..8000).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    let zeros = "A".repeat(16_000); // 12 000 zero bytes: 1000 positions
    let gltf = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[{scene}]}}],"nodes":[{nodes}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":1000,"type":"VEC3","min":[0,0,0],"max":[0,0,0]}}],
"bufferViews":[{{"buffer":0,"byteLength":12000}}],
"buffers":[{{"byteLength":12000,"uri":"data:;base64,{zeros}"}}]}}"#
    );
    std::fs::write(dir.join("instanced.gltf"), gltf).unwrap();
    // OBJ: 48 MB of polygon fans over 9 vertices, which tobj triangulates into about 1 GB.
    let fan = format!("f {}\n", (0..2000).map(|k| (1 + k % 9).to_string()).collect::<Vec<_>>().join(" "));
    let mut obj = (0..9).map(|i| format!("v {i} {} {}\n", i % 3, i % 2)).collect::<String>();
    obj.push_str(&fan.repeat(12_000));
    std::fs::write(dir.join("fans.obj"), obj).unwrap();
    // glTF: five 16 MiB external buffers, each within --max-file-mib, 80 MiB together.
    let buffers: Vec<String> = (0..5).map(|i| format!(r#"{{"byteLength":16777216,"uri":"b{i}.bin"}}"#)).collect();
    for i in 0..5 {
        std::fs::write(dir.join(format!("b{i}.bin")), vec![0u8; 16 << 20]).unwrap();
    }
    let gltf = format!(r#"{{"asset":{{"version":"2.0"}},"buffers":[{}]}}"#, buffers.join(","));
    std::fs::write(dir.join("buffers.gltf"), gltf).unwrap();
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    let o = run_limited(&["info", s(&dir.join("buffers.gltf")), "--max-memory-mib", "64"]);
    assert_refused(&o, &["buffers.gltf: glTF buffer 'b3.bin'", "over the 64 MiB budget", "--max-memory-mib"]);
    let o = run_limited(&["render", s(&dir.join("instanced.gltf")), "-o", s(&out.join("x.png"))]);
    assert_refused(&o, &["instanced.gltf", "8000000 vertices", "over the 256 MiB budget", "--max-memory-mib"]);
    let o = run_limited(&["render", s(&dir.join("fans.obj")), "-o", s(&out.join("x.png"))]);
    assert_refused(&o, &["fans.obj: parsing", "KiB of Obj", "over the 256 MiB budget", "--max-memory-mib"]);
    assert!(names_in(&out).is_empty(), "{:?}", names_in(&out));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn kilobytes_in_never_gigabytes_of_memory_gltf_documents() {
    let dir = scratch("gltf-document");
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    // 3.6 MB of empty materials: `{}` is three bytes of JSON and a struct of about 400 bytes
    // once the gltf crate builds it (1.2 million of them: about 470 MB).
    let materials = vec!["{}"; 1_200_000].join(",");
    let gltf = format!(r#"{{"asset":{{"version":"2.0"}},"materials":[{materials}]}}"#);
    std::fs::write(dir.join("materials.gltf"), gltf).unwrap();
    let o = run_limited(&["render", s(&dir.join("materials.gltf")), "-o", s(&out.join("x.png"))]);
    assert_refused(&o, &["materials.gltf: glTF document", "over the 256 MiB budget", "--max-memory-mib"]);
    assert!(names_in(&out).is_empty(), "{:?}", names_in(&out));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn kilobytes_in_never_gigabytes_of_memory_manifests() {
    // Parsed TOML takes about 75 times its text: a manifest is read only up to 2 MiB.
    let dir = scratch("manifest");
    std::fs::write(dir.join("cases.toml"), "[[case]]\n".repeat(400_000)).unwrap();
    let o = run_limited(&["check", s(&dir.join("cases.toml"))]);
    assert_refused(&o, &["cases.toml: 3600000 bytes, over the 2097152 byte limit for manifests"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn kilobytes_in_never_gigabytes_of_memory_material_libraries() {
    let dir = scratch("mtl");
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    // 4 MB of bare `newmtl` lines: 300,000 materials, about 300 MB once parsed.
    quad(&dir, "many", "skin.png");
    let mut mtl = (0..300_000).map(|i| format!("newmtl m{i}\n")).collect::<String>();
    mtl.push_str("newmtl skin\n");
    std::fs::write(dir.join("many.mtl"), mtl).unwrap();
    let o = run_limited(&["render", s(&dir.join("many.obj")), "-o", s(&out.join("x.png"))]);
    assert_refused(&o, &["many.obj: material library 'many.mtl'", "over the 256 MiB budget", "--max-memory-mib"]);
    assert!(names_in(&out).is_empty(), "{:?}", names_in(&out));
    // 9 MB of one `mtllib` line repeated 700,000 times: tobj asks for the library each time,
    // and each time it used to append its materials again (about 1 KB each, 700 MB in all).
    let mut obj = "mtllib one.mtl\n".repeat(700_000);
    obj.push_str("v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl skin\nf 1 2 3\n");
    std::fs::write(dir.join("one.obj"), obj).unwrap();
    std::fs::write(dir.join("one.mtl"), "newmtl skin\nKd 1 0 0\n").unwrap();
    let o = run_limited(&["info", s(&dir.join("one.obj"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("materials: 1\n"), "{}", stdout(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn keyed_clip_lengths_are_bounded() {
    let dir = scratch("keyed");
    std::fs::write(dir.join("forever.gltf"), gltf_keyed(1e38)).unwrap();
    std::fs::write(dir.join("hour.gltf"), gltf_keyed(3599.0)).unwrap();
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    for (command, output) in [("gif", "a.gif"), ("sheet", "a.png"), ("frames", "f_{dir}_{frame}.png")] {
        // A key time of 1e38 s made every multi-frame command panic ("capacity overflow").
        let o = run_limited(&[command, s(&dir.join("forever.gltf")), "-o", s(&out.join(output))]);
        assert_refused(&o, &["forever.gltf", "key time 1e38 s", "3600 s (1 hour)"]);
        // An hour is a valid clip, but its 107 970 frames at 30 fps are no sprite row.
        let o = run_limited(&[command, s(&dir.join("hour.gltf")), "-o", s(&out.join(output))]);
        assert_refused(
            &o,
            &[
                "frame count of clip 'slide' (3599 s long at 30 fps, every frame in its row) is 107970",
                "more than the 10000",
                "--frames (e.g. 16 frames a row)",
                "--sample-fps",
            ],
        );
        // At 1000 fps in 16 directions the hour is 57 million cells: refused from the count,
        // before any list of them is made (it once aborted under 1 GiB making that list).
        let (hour, output) = (dir.join("hour.gltf"), out.join(output));
        let o = run_limited(&[command, s(&hour), "--fps", "1000", "--directions", "16", "-o", s(&output)]);
        assert_refused(
            &o,
            &["frame count of clip 'slide' (3599 s long at 1000 fps, every frame in its row) is 3599000"],
        );
    }
    assert!(names_in(&out).is_empty(), "{:?}", names_in(&out));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_job_of_many_rows_under_the_row_cap_is_refused_from_its_cell_count() {
    // Issue 46, R4-01: 100 clips of 9,991 frames each pass the row cap; in 16 directions they
    // are 16 million cells, whose list aborted `sheet` under 1 GiB before any check.
    let dir = scratch("many-rows");
    let gltf = gltf_keyed_clips(333.0, 100);
    assert!(gltf.len() < 20_000, "{} bytes", gltf.len());
    std::fs::write(dir.join("rows.gltf"), gltf).unwrap();
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    for (command, output) in [("sheet", "a.png"), ("frames", "f_{clip}_{dir}_{frame}.png")] {
        let (model, output) = (dir.join("rows.gltf"), out.join(output));
        let o = run_limited(&[command, s(&model), "--directions", "16", "-o", s(&output)]);
        let words = ["frame count of the job", "is 15984000", "more than the 1000000", "--frames", "--sample-fps"];
        assert_refused(&o, &words);
    }
    assert!(names_in(&out).is_empty(), "{:?}", names_in(&out));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn kilobytes_in_never_gigabytes_of_memory_compare() {
    let dir = scratch("compare");
    // 11000² is inside the image decoder's own default limit (512 MiB) and 30000² is not:
    // both are refused by the budget from the header, before decoding.
    for side in [11000u32, 30000] {
        let (a, b) = (dir.join(format!("a{side}.png")), dir.join(format!("b{side}.png")));
        let png = png_declaring(side);
        assert!(png.len() < 16_000);
        std::fs::write(&a, &png).unwrap();
        std::fs::write(&b, &png).unwrap();
        let diff = dir.join("diff.png");
        let o = run_limited(&["compare", s(&a), s(&b), "--diff", s(&diff)]);
        let size = format!("({side}x{side})");
        assert_refused(&o, &[&format!("a{side}.png"), &size, "over the 256 MiB budget", "--max-memory-mib"]);
        assert_eq!(std::fs::read(&a).unwrap(), png);
        assert!(!diff.exists());
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// `examples/assets` copied into `dir` (tower.obj with its material and texture, the robot's
/// MD2 and MD5 with its skin; stems differ so each gets its own thumbnail).
fn copy_good_models(dir: &Path) -> Vec<PathBuf> {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/assets");
    for f in ["tower.obj", "tower.mtl", "tower_bricks.png"] {
        std::fs::copy(assets.join(f), dir.join(f)).unwrap();
    }
    for (from, to) in [("robot.md2", "robot.md2"), ("robot.md5mesh", "robot_md5.md5mesh"), ("robot.png", "robot.png")] {
        std::fs::copy(assets.join("robot").join(from), dir.join(to)).unwrap();
    }
    ["tower.obj", "robot.md2", "robot_md5.md5mesh"].iter().map(|f| dir.join(f)).collect()
}

#[test]
fn thumbnail_batches_report_bad_models_and_go_on() {
    let dir = scratch("batch");
    let mut models = copy_good_models(&dir);
    std::fs::write(dir.join("big.bmp"), bmp_declaring(8192)).unwrap();
    models.push(quad(&dir, "bigskin", "big.bmp"));
    std::fs::write(dir.join("forever.gltf"), gltf_keyed(1e38)).unwrap();
    models.push(dir.join("forever.gltf"));
    std::fs::write(dir.join("unweld.md2"), md2_unwelding(50_000, 4096)).unwrap();
    models.push(dir.join("unweld.md2"));
    let out = dir.join("thumbs");
    let mut args = vec!["thumbnail".to_string()];
    args.extend(models.iter().map(|m| m.display().to_string()));
    args.extend(["-o".into(), out.display().to_string(), "--size".into(), "64".into()]);
    let o = run_limited(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    let fail = |name: &str| text.lines().find(|l| l.starts_with("FAIL") && l.contains(name)).map(str::to_string);
    let bmp = fail("bigskin.obj").unwrap_or_default();
    assert!(bmp.contains("texture") && bmp.contains("8192x8192") && bmp.contains("--max-memory-mib"), "{text}");
    let gltf = fail("forever.gltf").unwrap_or_default();
    assert!(gltf.contains("key time 1e38 s"), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("ok")).count(), 3, "{text}");
    let md2 = fail("unweld.md2").unwrap_or_default();
    assert!(md2.contains("4096 frames x 50000 vertices") && md2.contains("--max-memory-mib"), "{text}");
    assert!(text.ends_with("3 thumbnails, 3 failed\n"), "{text}");
    assert_eq!(names_in(&out), ["robot.png", "robot_md5.png", "tower.png"]);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn caches_that_outlive_one_model_are_bounded() {
    // 24 models, each loading the same 2048² texture (100 MiB once prepared): a renderer cache
    // that kept every model's mip chain needed 2.4 GiB; only the models in flight may hold one.
    let dir = scratch("shared");
    let flat = spritebake::raster::Image { width: 2048, height: 2048, rgba: [90, 140, 200, 255].repeat(2048 * 2048) };
    spritebake::output::write_png(&dir.join("shared.png"), &flat).unwrap();
    let models: Vec<PathBuf> = (0..24).map(|i| quad(&dir, &format!("m{i:02}"), "shared.png")).collect();
    let out = dir.join("thumbs");
    let mut args = vec!["thumbnail".to_string(), "--size".into(), "32".into(), "-o".into(), out.display().to_string()];
    args.extend(models.iter().map(|m| m.display().to_string()));
    let o = run_limited(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).ends_with("24 thumbnails, 0 failed\n"), "{}", stdout(&o));
    let expected: Vec<String> = (0..24).map(|i| format!("m{i:02}.png")).collect();
    assert_eq!(names_in(&out), expected);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn attachments_share_one_budget() {
    // Each attachment loads its own copy of a 2048² texture (59 MiB prepared): any number of
    // them used to get a budget each; together they now fit in one.
    let dir = scratch("attach");
    let flat = spritebake::raster::Image { width: 2048, height: 2048, rgba: [200, 40, 40, 255].repeat(2048 * 2048) };
    spritebake::output::write_png(&dir.join("big.png"), &flat).unwrap();
    let models: Vec<PathBuf> = (0..6).map(|i| quad(&dir, &format!("p{i}"), "big.png")).collect();
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    let render = |attachments: &[PathBuf]| {
        let mut args = vec!["render".to_string(), models[0].display().to_string()];
        for a in attachments {
            args.extend(["--attach".to_string(), a.display().to_string()]);
        }
        args.extend(["--size", "16", "-o"].map(String::from));
        args.push(out.join("x.png").display().to_string());
        run_limited(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let o = render(&models[1..]);
    assert_refused(&o, &["big.png (2048x2048) (59 MiB), with 235 MiB already held", "over the 256 MiB budget"]);
    assert!(names_in(&out).is_empty(), "{:?}", names_in(&out));
    // Four attachments fit.
    let o = render(&models[1..5]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(names_in(&out), ["x.png"]);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Every model file under `dir` (the formats `thumbnail` reads).
fn model_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
        if path.is_dir() {
            model_files(&path, out);
        } else if ["obj", "md2", "md5mesh", "smd", "gltf", "glb"].contains(&ext.as_str()) {
            out.push(path);
        }
    }
}

#[test]
fn the_corpus_fits_in_one_gibibyte() {
    let Some(corpus) = common::corpus("") else { return };
    let mut models = Vec::new();
    model_files(&corpus, &mut models);
    assert!(!models.is_empty());
    let dir = scratch("corpus");
    // One run per model (folders hold models with the same stem). Sequence SMDs and the
    // `edge` folders' deliberately broken files may FAIL for their own reasons; nothing may
    // abort (SIGABRT is how an allocation failure under the limit ends) or hit the budget.
    let mut thumbnails = 0;
    for (i, model) in models.iter().enumerate() {
        let out = dir.join(format!("{i:03}"));
        let o = run_limited(&["thumbnail", s(model), "--size", "64", "-o", s(&out)]);
        let text = stdout(&o);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}: {:?} {}", model.display(), o.status, stderr(&o));
        assert!(!text.contains("budget") && !stderr(&o).contains("panicked"), "{text}{}", stderr(&o));
        thumbnails += usize::from(o.status.code() == Some(0));
    }
    // Every non-edge model but sequence SMDs renders.
    let expected = models.iter().filter(|m| !m.to_string_lossy().contains("/edge/")).count();
    assert!(thumbnails * 10 >= expected * 7, "{thumbnails} of {expected} models rendered");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn check_reports_budget_overruns_per_case_and_goes_on() {
    let dir = scratch("check");
    copy_good_models(&dir);
    std::fs::write(dir.join("big.bmp"), bmp_declaring(8192)).unwrap();
    quad(&dir, "bigskin", "big.bmp");
    // 9000² RGBA: 309 MiB decoded, over the default budget, well inside 1 GiB.
    std::fs::write(dir.join("huge.png"), png_declaring(9000)).unwrap();
    let manifest = "[defaults]\nsize = \"32x32\"\n\n\
        [[case]]\nname = \"good\"\nmodel = \"tower.obj\"\ngolden = \"golden/good.png\"\n\n\
        [[case]]\nname = \"huge-golden\"\nmodel = \"tower.obj\"\ngolden = \"huge.png\"\n\n\
        [[case]]\nname = \"huge-texture\"\nmodel = \"bigskin.obj\"\ngolden = \"golden/skin.png\"\n";
    std::fs::write(dir.join("cases.toml"), manifest).unwrap();
    let o = run_limited(&["check", s(&dir.join("cases.toml"))]);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}{}", stderr(&o));
    let line = |name: &str| text.lines().find(|l| l.contains(name)).unwrap_or_default().to_string();
    assert!(line("good").starts_with("NEW   good"), "{text}");
    let golden = line("huge-golden");
    assert!(golden.starts_with("ERROR huge-golden") && golden.contains("(9000x9000)"), "{text}");
    let texture = line("huge-texture");
    assert!(texture.starts_with("ERROR huge-texture") && texture.contains("(8192x8192)"), "{text}");
    // A case's error names the manifest key (a case or the command line may raise it).
    assert!(golden.contains("`max_memory_mib`") && texture.contains("`max_memory_mib`"), "{text}");
    assert!(text.ends_with("0 passed, 1 failed, 2 errors\n"), "{text}");
    // Raised, the golden's header passes the budget and its missing data is the error.
    let o = run_limited(&["check", s(&dir.join("cases.toml")), "--max-memory-mib", "1024"]);
    let golden = stdout(&o).lines().find(|l| l.contains("huge-golden")).unwrap_or_default().to_string();
    assert!(golden.contains("ERROR huge-golden") && golden.contains("not a readable PNG"), "{}", stdout(&o));
    // So does the case's own key, which the command's defaults no longer override.
    let raised = manifest.replace("golden = \"huge.png\"\n", "golden = \"huge.png\"\nmax_memory_mib = 1024\n");
    std::fs::write(dir.join("cases.toml"), raised).unwrap();
    let o = run_limited(&["check", s(&dir.join("cases.toml"))]);
    let golden = stdout(&o).lines().find(|l| l.contains("huge-golden")).unwrap_or_default().to_string();
    assert!(golden.contains("ERROR huge-golden") && golden.contains("not a readable PNG"), "{}", stdout(&o));
    std::fs::remove_dir_all(dir).unwrap();
}

/// A 365 KB QC playing a one-bone sequence 16384 times on a 2000-bone reference (each clip a
/// frame of every reference bone and a bone mapping): refused near the budget, so two of them
/// in a thumbnail batch are two FAIL lines under 1 GiB, and the good model's thumbnail is
/// written.
#[test]
fn qc_sequence_bombs_fail_alone_in_a_thumbnail_batch() {
    let dir = scratch("qc-bomb");
    let good = copy_good_models(&dir);
    let mut args = vec!["thumbnail".to_string(), "--size".into(), "16".into()];
    for bomb in ["a", "b"] {
        args.push(s(&crate::common::qc_sequence_bomb(&dir.join(bomb), 16384)).to_string());
    }
    args.push(s(&good[0]).to_string());
    let out = dir.join("out");
    args.extend(["-o".to_string(), s(&out).to_string()]);
    let o = run_limited(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}{}", stderr(&o));
    let fails: Vec<&str> = text.lines().filter(|l| l.starts_with("FAIL") && l.contains("bomb.qc")).collect();
    assert_eq!(fails.len(), 2, "{text}");
    assert!(fails.iter().all(|l| l.contains("over the 256 MiB budget")), "{text}");
    assert!(out.join("tower.png").is_file() && text.ends_with("1 thumbnails, 2 failed\n"), "{text}");
    std::fs::remove_dir_all(dir).unwrap();
}

/// A 43-byte golden GIF declaring a 65535² canvas (16 GiB before its first frame): its case is
/// an error, the others still run and the JUnit report is written.
#[test]
fn a_gif_golden_declaring_a_huge_canvas_fails_its_case_alone() {
    let dir = scratch("gif-bomb");
    copy_good_models(&dir);
    let mut gif = b"GIF89a".to_vec();
    gif.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00]); // 65535 x 65535, no palette
    gif.extend_from_slice(&[0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0x00]); // one 1x1 frame
    gif.extend_from_slice(&[0x02, 0x02, 0x44, 0x01, 0x00, 0x3B]);
    std::fs::write(dir.join("bomb.gif"), &gif).unwrap();
    let manifest = "[defaults]\nsize = \"32x32\"\n\n\
        [[case]]\nname = \"good\"\nmodel = \"tower.obj\"\ngolden = \"golden/good.png\"\n\n\
        [[case]]\nname = \"bomb\"\nkind = \"gif\"\nmodel = \"robot.md2\"\nframes = 2\ngolden = \"bomb.gif\"\n";
    std::fs::write(dir.join("cases.toml"), manifest).unwrap();
    let (cases, junit) = (dir.join("cases.toml"), dir.join("junit.xml"));
    for bless in [false, true] {
        let mut args = vec!["check", s(&cases), "--junit", s(&junit)];
        if bless {
            args.push("--bless");
        }
        let o = run_limited(&args);
        let text = stdout(&o);
        let bomb = text.lines().find(|l| l.contains(" bomb")).unwrap_or_default().to_string();
        if !bless {
            assert_eq!(o.status.code(), Some(1), "{text}{}", stderr(&o));
            assert!(bomb.starts_with("ERROR bomb") && bomb.contains("65535x65535"), "{text}");
            assert!(text.lines().any(|l| l.starts_with("NEW   good")), "{text}");
            assert!(std::fs::read_to_string(&junit).unwrap().contains("name=\"bomb\""));
        } else {
            // Blessing replaces the golden without reading it: the case is written, not decoded.
            assert!(o.status.code().is_some(), "killed: {text}{}", stderr(&o));
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn accessor_reads_are_counted_once() {
    use base64::Engine as _;
    // 1000 mesh nodes share one skin of 2048 joints: its inverse bind matrices (128 KiB) were
    // read, and a map built from them, once per node (300 MB allocated); now once per skin.
    let (joints, users) = (2048usize, 1000usize);
    let mut bin = Vec::new();
    for v in [0f32, 0., 0., 1., 0., 0., 0., 1., 0.] {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    for _ in 0..joints {
        for v in glam::Mat4::IDENTITY.to_cols_array() {
            bin.extend_from_slice(&v.to_le_bytes());
        }
    }
    let data = base64::engine::general_purpose::STANDARD.encode(&bin);
    let mut nodes: Vec<String> = (0..joints).map(|j| format!(r#"{{"name":"j{j}"}}"#)).collect();
    nodes.extend((0..users).map(|_| r#"{"mesh":0,"skin":0}"#.to_string()));
    let list = |r: std::ops::Range<usize>| r.map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    let gltf = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[{all}]}}],"nodes":[{nodes}],
"skins":[{{"joints":[{skin}],"inverseBindMatrices":1}}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
"buffers":[{{"byteLength":{len},"uri":"data:application/octet-stream;base64,{data}"}}],
"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":{ibm}}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
 {{"bufferView":1,"componentType":5126,"count":{joints},"type":"MAT4"}}]}}"#,
        all = list(0..joints + users),
        nodes = nodes.join(","),
        skin = list(0..joints),
        len = bin.len(),
        ibm = joints * 64,
    );
    let (model, allocated) = allocated_during(|| {
        spritebake::internal::formats::gltf::parse(gltf.as_bytes(), &mut |_| None, &Default::default()).unwrap()
    });
    assert_eq!(model.meshes.len(), users);
    // Parsing the JSON and building 1000 tiny meshes takes a few tens of MB; one read of the
    // matrices per node alone was 300 MB.
    assert!(allocated < 100 << 20, "{} MiB allocated", allocated >> 20);
}

#[test]
fn fbx_parsing_in_c_is_held_to_the_budget() {
    // ufbx allocates in C, outside Rust's allocator: its allocations are capped at what the
    // budget has left. The 1.8 MB Mixamo dancer needs about 40 MiB parsed.
    let Some(dir) = common::corpus("fbx") else { return };
    let flair = dir.join("flair/Flair.fbx");
    let out = scratch("fbx");
    let o = run_limited(&["render", s(&flair), "--max-memory-mib", "8", "-o", s(&out.join("x.png"))]);
    assert_refused(&o, &["Flair.fbx", "FBX", "over the 8 MiB budget", "--max-memory-mib"]);
    assert!(names_in(&out).is_empty(), "{:?}", names_in(&out));
    let o = run_limited(&["render", s(&flair), "-o", s(&out.join("x.png"))]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_dir_all(out).unwrap();
}

#[test]
fn kilobytes_in_never_gigabytes_of_memory_fbx_blend_shapes() {
    let dir = scratch("fbx_blend");
    use common::fbx::{Channel, Shape};
    let shape = || Shape { full: 100.0, offsets: vec![(0, [0.0, 1.0, 0.0])] };
    let channels =
        |n: usize| -> Vec<Channel> { (0..n).map(|_| Channel { percent: 0.0, shapes: vec![shape()] }).collect() };
    // 10 000 triangles of their own corners and 1000 channels of one offset each, in about
    // 600 KB: an offset per shape per vertex is 360 MB.
    let vertices: Vec<[f32; 3]> = (0..30_000).map(|k| [(k % 7) as f32, (k % 5) as f32, (k % 3) as f32]).collect();
    let triangles: Vec<Vec<u32>> = (0..10_000).map(|t| vec![3 * t, 3 * t + 1, 3 * t + 2]).collect();
    let fbx = common::fbx::blend_shapes(&vertices, &triangles, &channels(1000), None);
    assert!(fbx.len() < 700_000, "{}", fbx.len());
    std::fs::write(dir.join("shapes.fbx"), fbx).unwrap();
    // One triangle, 700 channels and an hour-long stack animating one: 108 001 keys of 700
    // weights are 300 MB.
    let triangle = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let hour = common::fbx::Stack { seconds: 3600.0, weight: Some((0.0, 100.0)) };
    let fbx = common::fbx::blend_shapes(&triangle, &[vec![0, 1, 2]], &channels(700), Some(hour));
    assert!(fbx.len() < 250_000, "{}", fbx.len());
    std::fs::write(dir.join("keys.fbx"), fbx).unwrap();
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    let cases = [
        ("shapes.fbx", "mesh 'Quad', 1000 blend shapes x 30000 vertex influences"),
        ("keys.fbx", "animation 'Raise', 108001 keys x 1 joints and 700 blend shapes"),
    ];
    for (file, words) in cases {
        let o = run_limited(&["render", s(&dir.join(file)), "-o", s(&out.join("x.png"))]);
        assert_refused(&o, &[file, words, "over the 256 MiB budget", "--max-memory-mib"]);
    }
    assert!(names_in(&out).is_empty(), "{:?}", names_in(&out));
    std::fs::remove_dir_all(dir).unwrap();
}
