//! Image comparison speed at 1024×1024: identical images (the exact-match fast path) and
//! images that differ everywhere (the full perceptual pass, with and without AA detection).

use criterion::{Criterion, criterion_group, criterion_main};
use spritebake::golden::{PerceptualOptions, compare_perceptual};
use spritebake::raster::Image;

fn gradient(shift: u32) -> Image {
    let mut rgba = Vec::with_capacity(1024 * 1024 * 4);
    for y in 0..1024u32 {
        for x in 0..1024u32 {
            rgba.extend_from_slice(&[((x + shift) % 256) as u8, (y % 256) as u8, ((x ^ y) % 256) as u8, 255]);
        }
    }
    Image::from_rgba(1024, 1024, rgba).expect("size")
}

fn compare(c: &mut Criterion) {
    let (a, b, d) = (gradient(0), gradient(0), gradient(7));
    let mut group = c.benchmark_group("compare_1024");
    group.bench_function("identical", |bench| bench.iter(|| compare_perceptual(&a, &b, &PerceptualOptions::default())));
    group.bench_function("different", |bench| bench.iter(|| compare_perceptual(&a, &d, &PerceptualOptions::default())));
    let aa = PerceptualOptions { ignore_aa: true, ..PerceptualOptions::default() };
    group.bench_function("different_ignore_aa", |bench| bench.iter(|| compare_perceptual(&a, &d, &aa)));
    group.finish();
}

criterion_group!(benches, compare);
criterion_main!(benches);
