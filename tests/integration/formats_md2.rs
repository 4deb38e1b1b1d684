//! MD2: a hand-built file, hostile headers, truncation, the writer, and the corpus.

use glam::{Vec2, Vec3};
use spritebake::anim::{FrameTime, PoseOptions, pose};
use spritebake::internal::formats::md2;

use crate::common::{corpus, signed_volume};

fn le(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// A 3-vertex, 1-triangle, 2-frame MD2 written byte by byte: skin 64×32, frame 0 scale (1,2,3)
/// translate (10,20,30), frame 1 scale (0.5,0.5,0.5) translate (0,0,0).
fn tiny() -> Vec<u8> {
    let (nv, nst, ntri, nframes) = (3, 3, 1, 2);
    let frame_bytes = 40 + 4 * nv;
    let ofs_skins = 68;
    let ofs_st = ofs_skins + 64;
    let ofs_tris = ofs_st + 4 * nst;
    let ofs_frames = ofs_tris + 12 * ntri;
    let ofs_end = ofs_frames + frame_bytes * nframes;
    let mut b = b"IDP2".to_vec();
    for v in [
        8,
        64,
        32,
        frame_bytes,
        1,
        nv,
        nst,
        ntri,
        0,
        nframes,
        ofs_skins,
        ofs_st,
        ofs_tris,
        ofs_frames,
        ofs_end,
        ofs_end,
    ] {
        le(&mut b, v);
    }
    let mut skin = b"players/tiny/skin.pcx".to_vec();
    skin.resize(64, 0);
    b.extend_from_slice(&skin);
    for (s, t) in [(0i16, 0i16), (64, 0), (0, 32)] {
        b.extend_from_slice(&s.to_le_bytes());
        b.extend_from_slice(&t.to_le_bytes());
    }
    for v in [0u16, 1, 2, 0, 1, 2] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    for (scale, translate, name, verts) in [
        ([1.0f32, 2.0, 3.0], [10.0f32, 20.0, 30.0], "walk1", [[0u8, 0, 0], [4, 0, 0], [0, 5, 0]]),
        ([0.5, 0.5, 0.5], [0.0, 0.0, 0.0], "walk2", [[2, 2, 2], [4, 2, 2], [2, 6, 2]]),
    ] {
        for v in scale.iter().chain(&translate) {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let mut n = name.as_bytes().to_vec();
        n.resize(16, 0);
        b.extend_from_slice(&n);
        for v in verts {
            b.extend_from_slice(&[v[0], v[1], v[2], 5]); // normal 5 is (0, 0, 1)
        }
    }
    assert_eq!(b.len(), ofs_end as usize);
    b
}

#[test]
fn hand_built_file_poses_to_byte_times_scale_plus_translate() {
    let model = md2::parse(&tiny()).unwrap();
    assert_eq!(model.clips.len(), 1);
    assert_eq!((model.clips[0].name.as_str(), model.clips[0].fps), ("walk", 10.0));
    assert_eq!(model.materials[0].texture_name.as_deref(), Some("players/tiny/skin.pcx"));
    let mesh = &model.meshes[0];
    // The triangle (0,1,2) is stored clockwise: the model holds it as (0,2,1).
    assert_eq!(mesh.indices, vec![[0, 2, 1]]);
    assert_eq!(mesh.uvs, vec![Vec2::new(0.0, 0.0), Vec2::new(1.0, 0.0), Vec2::new(0.0, 1.0)]);
    let at = |f: f32| {
        pose(&model, model.clips.first(), FrameTime::Frame(f), &PoseOptions::default()).parts[0].positions.to_vec()
    };
    // Frame 0: (0,0,0)·(1,2,3)+(10,20,30), (4,0,0)·… = (14,20,30), (0,5,0)·… = (10,30,30).
    assert_eq!(at(0.0), vec![Vec3::new(10.0, 20.0, 30.0), Vec3::new(14.0, 20.0, 30.0), Vec3::new(10.0, 30.0, 30.0)]);
    // Frame 1: bytes × 0.5.
    assert_eq!(at(1.0), vec![Vec3::new(1.0, 1.0, 1.0), Vec3::new(2.0, 1.0, 1.0), Vec3::new(1.0, 3.0, 1.0)]);
    // Halfway: the average.
    assert_eq!(at(0.5)[1], Vec3::new(8.0, 10.5, 15.5));
    assert_eq!(model.meshes[0].normals[0], Vec3::Z);
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = tiny();
    for end in 0..bytes.len() {
        assert!(md2::parse(&bytes[..end]).is_err(), "prefix of {end} bytes parsed");
    }
}

#[test]
fn hostile_headers_fail_fast_with_the_offset() {
    let patch = |at: usize, v: i32| {
        let mut b = tiny();
        b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        md2::parse(&b).unwrap_err().to_string()
    };
    assert!(patch(40, 45_000_000).contains("byte offset 40"), "{}", patch(40, 45_000_000));
    assert!(patch(32, 3_000_000).contains("byte offset 32"));
    assert!(patch(4, 7).contains("version 8"));
    assert!(patch(56, 1 << 30).contains("byte offset 56"));
    assert!(patch(24, -5).contains("byte offset 24"));
    // A triangle index past the vertex count.
    let mut b = tiny();
    let ofs_tris = 68 + 64 + 12;
    b[ofs_tris + 2..ofs_tris + 4].copy_from_slice(&9u16.to_le_bytes());
    let e = md2::parse(&b).unwrap_err().to_string();
    assert!(e.contains(&format!("byte offset {}", ofs_tris + 2)) && e.contains("out of range"), "{e}");
}

#[test]
fn writer_round_trips_within_quantisation() {
    let positions = vec![Vec3::new(-3.0, 1.0, 0.0), Vec3::new(5.0, 2.5, 7.0), Vec3::new(0.3, -4.0, 2.0)];
    let normals = vec![Vec3::Z, Vec3::X, Vec3::NEG_Y];
    let frames = vec![
        ("idle1".to_string(), positions.clone(), normals.clone()),
        ("idle2".to_string(), positions.iter().map(|p| *p * 2.0).collect(), normals),
    ];
    let uvs = [Vec2::new(0.0, 0.0), Vec2::new(0.5, 0.25), Vec2::new(1.0, 1.0)];
    let bytes = md2::write(&md2::Md2Source {
        skin: "skin.png",
        skin_size: (64, 64),
        uvs: &uvs,
        indices: &[[0, 1, 2]],
        frames: &frames,
    });
    let model = md2::parse(&bytes).unwrap();
    // Vertices may be renumbered by the unwelding; follow the triangle's corners instead.
    let tri = model.meshes[0].indices[0].map(|i| i as usize);
    for (f, (_, want, _)) in frames.iter().enumerate() {
        let got = &model.meshes[0].morph_frames[f].positions;
        let step = (want.iter().fold(Vec3::NEG_INFINITY, |a, p| a.max(*p))
            - want.iter().fold(Vec3::INFINITY, |a, p| a.min(*p)))
            / 255.0;
        for (corner, w) in tri.iter().zip(want) {
            let g = got[*corner];
            assert!(((g - *w).abs() - step * 0.5).max_element() < 1e-4, "{g} vs {w}");
        }
    }
    assert_eq!(model.meshes[0].uvs[tri[1]], uvs[1]);
    assert!(model.meshes[0].morph_frames[0].normals[tri[1]].dot(Vec3::X) > 0.95);
}

#[test]
fn corpus_md2_models_load_animate_and_wind_outwards() {
    let Some(dir) = corpus("md2") else { return };
    let load =
        |p: &str| spritebake::formats::load(&dir.join(p), &Default::default()).unwrap_or_else(|e| panic!("{p}: {e}"));
    let sydney = load("sydney/sydney.md2");
    assert_eq!((sydney.triangle_count(), sydney.meshes[0].morph_frames.len()), (679, 198));
    let names: Vec<&str> = sydney.clips.iter().map(|c| c.name.as_str()).collect();
    // Sydney numbers its frames pain1..pain12 and death1..death20 (see PROVENANCE.md).
    assert_eq!(
        names,
        [
            "stand", "run", "attack", "pain", "jump", "flip", "salute", "taunt", "wave", "point", "crstnd", "crwalk",
            "crattak", "crpain", "crdeth", "death"
        ]
    );
    let frames: Vec<usize> = sydney.clips.iter().map(|c| c.frame_count()).collect();
    assert_eq!(frames, [40, 6, 8, 12, 6, 12, 11, 17, 11, 12, 19, 6, 9, 4, 5, 20]);
    assert!(signed_volume(&sydney) > 0.0, "sydney winds inside out");
    // Sydney names no skin; sydney.bmp beside it is found by the model's stem.
    assert!(matches!(sydney.materials[0].texture_status, spritebake::model::TextureStatus::Found(_)));
    let ogro = load("ogro/ogro.md2");
    assert_eq!(ogro.meshes[0].morph_frames.len(), 199);
    assert!(ogro.clips.iter().any(|c| c.name == "paina") && ogro.clips.iter().any(|c| c.name == "run"));
    assert_eq!(load("ogro/weapon.md2").triangle_count(), 122);
    assert_eq!(load("faerie/faerie.md2").triangle_count(), 654);
    let phoenix = load("edge/phoenix_ugv/phoenix_ugv.md2");
    assert_eq!(phoenix.triangle_count(), 2282);
    assert!(
        matches!(phoenix.materials[0].texture_status, spritebake::model::TextureStatus::Found(_)),
        "{:?}",
        phoenix.materials[0].texture_status
    );
    for edge in ["malformed_zero_numvertices", "utf8_mangled_ogro_weapon"] {
        let e = spritebake::formats::load(&dir.join(format!("edge/{edge}.md2")), &Default::default())
            .map(|_| ())
            .unwrap_err();
        assert!(e.to_string().contains("byte offset"), "{edge}: {e}");
    }
    for model in [&sydney, &ogro] {
        for clip in &model.clips {
            for f in 0..clip.frame_count() * 2 {
                let p = pose(model, Some(clip), FrameTime::Frame(f as f32 * 0.5), &PoseOptions::default());
                assert!(p.parts[0].positions.iter().all(|v| v.is_finite()));
            }
        }
    }
}
