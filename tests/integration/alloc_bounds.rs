//! A 1 KiB file that claims millions of triangles, joints or frames is rejected after
//! allocating at most a few MiB: counts are checked against the bytes present first.
//!
//! Peaks are counted per thread by the test binary's allocator ([`crate::common::alloc`]).

use crate::common::alloc::peak_during;

const LIMIT: usize = 4 << 20;

#[test]
fn huge_claims_in_small_files_allocate_little() {
    // MD2: a valid 68-byte header padded to 1 KiB that claims 4 million triangles and frames.
    let mut md2 = b"IDP2".to_vec();
    for v in [8i32, 64, 64, 40 + 4 * 3, 0, 3, 3, 4_000_000, 0, 4_000_000, 68, 68, 80, 200, 1024, 1024] {
        md2.extend_from_slice(&v.to_le_bytes());
    }
    md2.resize(1024, 0);
    let peak = peak_during(|| assert!(spritebake::internal::formats::md2::parse(&md2).is_err()));
    assert!(peak < LIMIT, "MD2: {peak} bytes");

    // IQM: a 1 KiB file claiming 4096 joints, a million vertices and 4096 meshes.
    let mut iqm = b"INTERQUAKEMODEL\0".to_vec();
    for v in [2u32, 1024, 0, 0, 0, 4096, 124, 1, 1_000_000, 124, 0, 0, 0, 4096, 124, 4096, 124, 1, 124, 1 << 30, 0, 0] {
        iqm.extend_from_slice(&v.to_le_bytes());
    }
    iqm.resize(1024, 0);
    let peak = peak_during(|| assert!(spritebake::internal::formats::iqm::parse(&iqm).is_err()));
    assert!(peak < LIMIT, "IQM: {peak} bytes");

    // Quake 1 MDL: a 1 KiB file claiming a 4096² skin, 65536 vertices and 4096 frames.
    let mut mdl = b"IDPO".to_vec();
    mdl.extend_from_slice(&6i32.to_le_bytes());
    [1.0f32, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0].iter().for_each(|v| mdl.extend_from_slice(&v.to_le_bytes()));
    [1i32, 4096, 4096, 65536, 131072, 4096, 0, 0].iter().for_each(|v| mdl.extend_from_slice(&v.to_le_bytes()));
    mdl.resize(1024, 0);
    let peak = peak_during(|| assert!(spritebake::internal::formats::mdl::parse(&mdl).is_err()));
    assert!(peak < LIMIT, "MDL: {peak} bytes");

    // MD5: millions of joints, meshes, vertices and weights in a short text.
    for claim in ["numJoints 4000000\nnumMeshes 1\n", "numJoints 1\nnumMeshes 3000000\n"] {
        let mut text = format!("MD5Version 10\n{claim}joints {{\n\"a\" -1 ( 0 0 0 ) ( 0 0 0 )\n}}\n");
        text.push_str("mesh {\nshader \"s\"\nnumverts 9000000\nvert 0 ( 0 0 ) 0 1\n");
        text.push_str(&" ".repeat(1024usize.saturating_sub(text.len())));
        let peak = peak_during(|| assert!(spritebake::internal::formats::md5::parse_mesh(&text).is_err()));
        assert!(peak < LIMIT, "MD5 '{claim}': {peak} bytes");
    }
    let mesh = spritebake::internal::formats::md5::parse_mesh(
        "MD5Version 10\nnumJoints 1\nnumMeshes 0\njoints {\n\"a\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n",
    )
    .unwrap();
    let anim = format!(
        "MD5Version 10\nnumFrames 5000000\nnumJoints 1\nframeRate 24\nnumAnimatedComponents 8000000\n{}",
        " ".repeat(900)
    );
    let peak = peak_during(|| {
        assert!(spritebake::internal::formats::md5::parse_anim(&anim, "a", mesh.skeleton.as_ref().unwrap()).is_err())
    });
    assert!(peak < LIMIT, "MD5 anim: {peak} bytes");

    // PCX: a 128-byte header claiming 65535 × 65535 pixels.
    let mut pcx = vec![0x0A, 5, 1, 8, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF];
    pcx.resize(1024, 0);
    pcx[65] = 1; // planes
    pcx[66..68].copy_from_slice(&0xFFFFu16.to_le_bytes()); // bytes per line
    let peak = peak_during(|| {
        assert!(spritebake::internal::formats::textures::decode_image(&pcx, std::path::Path::new("x.pcx")).is_err())
    });
    assert!(peak < LIMIT, "PCX: {peak} bytes");

    // OBJ: a face line with a million corners all out of range, in 1 KiB of text? Not possible;
    // instead, an index far past the end must fail at validation without allocating for it.
    let obj = format!("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 999999999\n{}", "#".repeat(900));
    let peak =
        peak_during(|| assert!(spritebake::internal::formats::obj::parse(obj.as_bytes(), &mut |_| None).is_err()));
    assert!(peak < LIMIT, "OBJ: {peak} bytes");

    // glTF: accessors claiming 100 million vertices, over a 12-byte buffer or over no buffer.
    for view in [r#""bufferView": 0,"#, ""] {
        let gltf = format!(
            r#"{{"asset": {{"version": "2.0"}}, "scenes": [{{"nodes": [0]}}], "nodes": [{{"mesh": 0}}],
            "meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0}}}}]}}],
            "accessors": [{{{view} "componentType": 5126, "type": "VEC3", "count": 100000000, "min": [0,0,0], "max": [0,0,0]}}],
            "bufferViews": [{{"buffer": 0, "byteLength": 12}}],
            "buffers": [{{"byteLength": 12, "uri": "data:;base64,AAAAAAAAAAAAAAAA"}}]}}"#
        );
        let peak = peak_during(|| {
            let r = spritebake::internal::formats::gltf::parse(gltf.as_bytes(), &mut |_| None, &Default::default());
            assert!(r.is_err(), "{view}");
        });
        assert!(peak < LIMIT, "glTF {view}: {peak} bytes");
    }

    // glTF: one 1000-vertex mesh instanced by 10000 nodes (10 million vertices) fails up front.
    let nodes: Vec<String> = (0..10_000).map(|_| r#"{"mesh": 0}"#.to_string()).collect();
    let zeros = "A".repeat(16_000); // 12 000 zero bytes in base64
    let gltf = format!(
        r#"{{"asset": {{"version": "2.0"}}, "scenes": [{{"nodes": [{}]}}], "nodes": [{}],
        "meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0}}}}]}}],
        "accessors": [{{"bufferView": 0, "componentType": 5126, "type": "VEC3", "count": 1000, "min": [0,0,0], "max": [0,0,0]}}],
        "bufferViews": [{{"buffer": 0, "byteLength": 12000}}],
        "buffers": [{{"byteLength": 12000, "uri": "data:;base64,{zeros}"}}]}}"#,
        (0..10_000).map(|i| i.to_string()).collect::<Vec<_>>().join(","),
        nodes.join(",")
    );
    let json_size = gltf.len();
    let peak = peak_during(|| {
        let r = spritebake::internal::formats::gltf::parse(gltf.as_bytes(), &mut |_| None, &Default::default());
        assert!(r.unwrap_err().to_string().contains("more than the"));
    });
    assert!(peak < LIMIT + 16 * json_size, "glTF instances: {peak} bytes");
}

#[test]
fn a_sheets_engine_data_stays_within_its_charge() {
    use spritebake::bake::{FrameNames, JsonFormat, Placement, Sheet};
    use spritebake::internal::bake::engines::{data_bytes, sheet_data_files};
    // 2000 frames of 4 tags with long names: what the data writers hold at their peak.
    let tag = |i: usize| format!("{}_{}", "a-clip-with-a-long-name".repeat(4), i % 4);
    let placements: Vec<Placement> = (0..2000)
        .map(|i| Placement {
            name: String::new(),
            key: (0, 0, i),
            flipped: false,
            animation: tag(i / 500),
            x: i as u32,
            y: 0,
            w: 1,
            h: 1,
            source_x: 0,
            source_y: 0,
            pivot: (0.5, 1.0),
            duration: 0.1,
            looping: true,
            points: Vec::new(),
        })
        .collect();
    // The most the job adds to `meta`: 16 named directions and a fixed scale with its pivot.
    let job = spritebake::internal::bake::JobInfo {
        rows: vec![tag(0)],
        directions: spritebake::bake::Directions::compass(16),
        pixels_per_unit: Some(0.1),
        premultiplied: true,
        pixel_art: true,
        points: Vec::new(),
    };
    let pages = vec![spritebake::internal::bake::Page { size: (2000, 1), placements }];
    let sheet = Sheet { pages, frame_size: (2, 2), duplicates: 0, job, pivot: glam::Vec2::new(1.0, 2.0) };
    for format in JsonFormat::ALL {
        for pattern in [format.default_frame_names(), "{title}-{tag}-{tagframe000}-{duration}"] {
            let names = FrameNames::parse(pattern).unwrap();
            let png = std::path::Path::new("a-sheet-with-a-long-name.png");
            // The data is written on rayon's threads, and allocations are counted per thread:
            // measured on a pool of one thread, all of it is counted.
            let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
            let peak =
                one.install(|| peak_during(|| drop(sheet_data_files(&sheet, png, format, &names, false).unwrap())));
            let charged = data_bytes(2000, "a-sheet-with-a-long-name".len(), tag(0).len(), &names);
            assert!(peak < charged as usize, "{format:?} {pattern}: {peak} bytes held, {charged} charged");
        }
    }
}

/// A QC that plays a one-bone sequence thousands of times on a reference of 2000 bones: each
/// clip is a frame of every reference bone plus the mapping's report, all charged, so the load
/// is refused near its budget (the report's 1999 names per clip once took as much again).
#[test]
fn qc_sequences_on_a_large_skeleton_are_charged_what_they_hold() {
    let dir = std::env::temp_dir().join(format!("spritebake-alloc-qc-{}", std::process::id()));
    let qc = crate::common::qc_sequence_bomb(&dir, 4096);
    let budget: u64 = 32 << 20;
    let options = spritebake::formats::LoadOptions {
        limits: spritebake::formats::Limits { max_memory_bytes: budget, ..Default::default() },
        ..Default::default()
    };
    let mut result = None;
    let peak = peak_during(|| result = Some(spritebake::formats::load(&qc, &options)));
    let e = result.unwrap().unwrap_err();
    assert!(matches!(e, spritebake::Error::Budget { .. }), "{e}");
    assert!((peak as u64) < budget * 5 / 4, "{} MiB held under a {} MiB budget", peak >> 20, budget >> 20);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A Quake 1 MDL made to be expensive to parse: `n` vertices, all on the seam, each used by a
/// front-facing and a back-facing triangle (so each becomes two render vertices), one frame.
fn mdl_all_seams(n: usize) -> Vec<u8> {
    let words = |b: &mut Vec<u8>, v: &[i32]| v.iter().for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
    let mut b = b"IDPO".to_vec();
    words(&mut b, &[6]);
    [1.0f32, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0].iter().for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
    words(&mut b, &[1, 4, 4, n as i32, 2 * (n / 3) as i32, 1, 0, 0]);
    b.extend_from_slice(&1.0f32.to_le_bytes());
    words(&mut b, &[0]);
    b.extend_from_slice(&[0; 16]);
    (0..n).for_each(|i| words(&mut b, &[0x20, (i % 4) as i32, 0]));
    for t in 0..n / 3 {
        let v = 3 * t as i32;
        words(&mut b, &[1, v, v + 1, v + 2, 0, v, v + 2, v + 1]);
    }
    words(&mut b, &[0]);
    b.extend_from_slice(&[0; 24]);
    (0..n).for_each(|i| b.extend_from_slice(&[i as u8, (i >> 8) as u8, 0, 0]));
    b
}

/// What the loader charges before parsing an IQM or a Quake 1 MDL
/// (`Format::parse_bytes_per_byte` × the file's bytes), with what the parser charges as it
/// goes, covers the peak it holds: on files made to be expensive and on the corpus models. The
/// ratios printed are the measurement behind the factors.
#[test]
fn iqm_and_mdl_peaks_stay_within_what_is_charged() {
    use spritebake::MemoryBudget;
    use spritebake::internal::formats::{Format, iqm, mdl};
    let mut cases = vec![
        ("mdl: 60000 seam vertices", Format::Mdl, mdl_all_seams(60_000)),
        ("iqm: 4096 joints, one frame", Format::Iqm, crate::hostile_memory::iqm_anim_bomb(4096, 1)),
    ];
    if let Some(dir) = crate::common::corpus("") {
        cases.push(("mrfixit.iqm", Format::Iqm, std::fs::read(dir.join("iqm/mrfixit/mrfixit.iqm")).unwrap()));
        let tek = std::fs::read(dir.join("mdl/quake1/tekmechbot/tekmechbot.MDL")).unwrap();
        cases.push(("tekmechbot.MDL", Format::Mdl, tek));
    }
    for (name, format, bytes) in cases {
        let budget = MemoryBudget::new(u64::MAX);
        let peak = peak_during(|| match format {
            Format::Iqm => drop(iqm::parse_within(&bytes, &budget).unwrap()),
            _ => drop(mdl::parse_within(&bytes, None, &budget).unwrap()),
        }) as u64;
        let uncharged = peak.saturating_sub(budget.used()) as f64 / bytes.len() as f64;
        eprintln!(
            "{name}: {} bytes, peak {peak}, charged by the parser {}, rest {uncharged:.2}x",
            bytes.len(),
            budget.used()
        );
        assert!(peak <= budget.used() + bytes.len() as u64 * format.parse_bytes_per_byte(), "{name}: {uncharged:.2}x");
    }
}
