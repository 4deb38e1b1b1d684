//! Cells that stream: a sheet drawn wave by wave is the sheet packed from every cell at once,
//! and an ordinary large job runs within the default budget and a 1 GiB address space.

use std::path::{Path, PathBuf};
use std::process::Command;

use spritebake::MemoryBudget;
use spritebake::bake::{Directions, Layout, MapKind, Sampling};
use spritebake::internal::bake::{FinishedPage, Job, SheetBuilder, pack};
use spritebake::model::Model;
use spritebake::raster::{Image, OrbitView, RenderOptions};
use spritebake::spec::{Fit, LookSpec};

use crate::common;

fn robot() -> Model {
    let options = spritebake::formats::LoadOptions {
        animations: vec![PathBuf::from(common::robot("walk.md5anim"))],
        ..Default::default()
    };
    spritebake::formats::load(Path::new(&common::robot("robot.md5mesh")), &options).unwrap()
}

/// The robot walking in 4 directions, 6 frames each, 40² cells, with normal maps.
fn job(model: &Model) -> Job<'_> {
    Job {
        model,
        clips: vec![model.clips.first()],
        transitions: Vec::new(),
        layers: Default::default(),
        directions: Directions::compass(4),
        view: OrbitView { pitch_degrees: 20.0, ..OrbitView::default() },
        options: RenderOptions { width: 40, height: 40, ssaa: 2, ..RenderOptions::default() },
        fit: Fit::Shared,
        pixels_per_unit: None,
        ground: spritebake::spec::Ground::Auto,
        auto_size: false,
        sampling: Sampling::Count(6),
        looping: Default::default(),
        pose: spritebake::anim::PoseOptions { looping: true, in_place: true },
        look: LookSpec { maps: vec![MapKind::Normal], ..LookSpec::default() },
        points: Vec::new(),
    }
}

#[test]
fn pages_drawn_wave_by_wave_are_the_pages_packed_at_once() {
    let model = robot();
    let job = job(&model);
    let cells = job.render().unwrap();
    let (w, h) = (cells[0].image.width, cells[0].image.height);
    let keys: Vec<(usize, u32)> = cells.iter().map(|c| (c.clip, c.direction)).collect();
    let whole = vec![(0, 0, w, h); cells.len()];
    let stored: Vec<usize> = (0..cells.len()).collect();
    // Pages of two rows of 6 cells: with extruded edges (cells copied in, as they repeat the
    // cell's own edges), padded, and cells touching (drawn straight into their places).
    for (padding, extrude) in [(2, 1), (2, 0), (0, 0)] {
        let layout = Layout { padding, extrude, max_size: (300, 100), ..Layout::default() };
        let packed = pack(&cells, &job.info(), layout, &MemoryBudget::default()).unwrap();
        assert_eq!(packed.images.len(), 2);
        for wave in [1, 5, cells.len()] {
            let mut builder =
                SheetBuilder::new((w, h), &whole, &stored, &keys, job.info(), layout, &[MapKind::Normal]).unwrap();
            let case = format!("padding {padding}, extrude {extrude}, wave {wave}");
            // What is charged for the pages in progress: one page (and its normal map) at a
            // time when a wave never spans two, both when one does.
            let page_bytes: Vec<u64> = builder.page_sizes().iter().map(|&(w, h)| u64::from(w * h) * 8).collect();
            let expected = match wave {
                1 => *page_bytes.iter().max().unwrap(),
                _ => page_bytes.iter().sum(),
            };
            assert_eq!(builder.live_page_bytes(wave), expected, "{case}");
            let mut finished: Vec<(usize, FinishedPage)> = Vec::new();
            for (i, chunk) in cells.chunks(wave).enumerate() {
                // Each cell the builder has a place for is drawn there (as a render would be)
                // and arrives without its image.
                let places = builder.places(i * wave, chunk.len()).unwrap();
                assert_eq!(places.iter().all(Option::is_some), extrude == 0, "{case}");
                let mut arriving = chunk.to_vec();
                for (place, cell) in places.into_iter().zip(&mut arriving) {
                    if let Some(mut rows) = place {
                        assert_eq!((rows.width(), rows.height()), (w, h));
                        for (y, src) in cell.image.rgba.chunks_exact(w as usize * 4).enumerate() {
                            rows.row_mut(y as u32).unwrap().copy_from_slice(src);
                        }
                        cell.image = Image::default();
                    }
                }
                builder
                    .add(&arriving, &mut |page| {
                        finished.push((i, page));
                        Ok(())
                    })
                    .unwrap();
            }
            let sheet = builder.finish().unwrap();
            assert_eq!(sheet.pages, packed.sheet.pages, "{case}");
            assert_eq!(finished.len(), 2, "{case}");
            for (_, page) in &finished {
                assert!(page.image == packed.images[page.index], "{case}: page {} differs", page.index);
                assert!(page.maps.normal == packed.maps[page.index].normal, "{case}: page {} map", page.index);
            }
            // The first page leaves as soon as its last cell (the 12th) is drawn, not at the end.
            let first = finished.iter().find(|(_, p)| p.index == 0).unwrap().0;
            assert_eq!(first, 11 / wave, "{case}");
        }
    }
}

#[test]
fn a_16_direction_512_px_sheet_runs_with_the_default_budget_in_1_gib() {
    // 256 cells of 512²: 256 MiB of finished cells, which the held road refused by default.
    let dir = common::cli::scratch_in("streaming", "big-sheet");
    let out = dir.join("walk.png");
    let o = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_spritebake"))
        .args(["sheet", &common::robot("robot.md5mesh"), "--anim", &common::robot("walk.md5anim")])
        .args(["--directions", "16", "--size", "512", "--ssaa", "1", "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("walk-7.json")).unwrap()).unwrap();
    assert_eq!(json["meta"]["related_multi_packs"].as_array().unwrap().len(), 7);
    let pages = (0..8).filter(|i| dir.join(format!("walk-{i}.png")).is_file()).count();
    assert_eq!(pages, 8);
    std::fs::remove_dir_all(dir).unwrap();
}
