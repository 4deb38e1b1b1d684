//! A page's `.meta`: Unity's TextureImporter settings making the page a Sprite texture
//! (`textureType: 8`) of Multiple sprites (`spriteMode: 2`), one per frame on it.
//!
//! A sprite's `rect` is the frame's rectangle with y measured from the page's bottom (Unity's
//! texture space); its `pivot` (`alignment: 9`, custom) is the frame's pivot as a fraction of
//! that rectangle from its bottom-left. A trimmed frame keeps the untrimmed frame's pivot
//! point: the pivot is where it is in the untrimmed frame, less where the kept rectangle
//! starts in it, so it may fall outside 0..1, and each frame of an animation stays put.
//!
//! The import settings are what a sprite sheet wants and Unity's defaults are not:
//! * no compression (`textureCompression: 0`): block compression smears the frames' hard
//!   alpha edges and bleeds neighbouring frames into each other; compress per platform in
//!   Unity where memory matters;
//! * no mipmaps: sprites are drawn near their size, and smaller levels mix neighbouring
//!   frames;
//! * clamped, not repeated (`wrapU/V/W: 1`);
//! * nearest filtering (`filterMode: 0`, Point) for pixel art (`--pixel-art`), bilinear
//!   otherwise;
//! * `maxTextureSize` at least the page (Unity's default, 2048, would shrink a larger page
//!   and every frame with it);
//! * `spritePixelsToUnits`: the job's `--pixels-per-unit` (one model unit is one Unity unit),
//!   else Unity's default 100.

use std::fmt::Write as _;

use super::ids::{Ids, pixels_per_unit, sprite_id};
use super::yaml::scalar;
use crate::bake::product::engines::Atlas;
use crate::bake::product::engines::texturepacker::hundredths;
use crate::bake::{JobInfo, Placement};

/// The largest texture Unity imports (its `maxTextureSize` choices end there).
const UNITY_MAX_TEXTURE: u32 = 16384;

/// Bytes of a sprite's entry besides its name, to size the text once (measured: 560).
const SPRITE_BYTES: usize = 640;

/// The `.meta` of page `page` of `atlas`.
pub(crate) fn to_meta(atlas: &Atlas, page: usize, ids: &Ids, job: &JobInfo) -> String {
    let (w, h) = atlas.pages.get(page).map_or((0, 0), |p| p.size);
    let frames: Vec<(usize, &str, &Placement)> = (atlas.frames.iter().enumerate())
        .filter(|(_, f)| f.page == page)
        .map(|(i, f)| (i, f.name.as_str(), f.placement))
        .collect();
    let names: usize = frames.iter().map(|(_, name, _)| name.len()).sum();
    let mut out = String::with_capacity(4096 + frames.len() * SPRITE_BYTES + 3 * names);
    // Writing to a String cannot fail.
    let _ = writeln!(out, "fileFormatVersion: 2\nguid: {}\nTextureImporter:", ids.guid(page));
    // The legacy table of the sprites' ids (class 213, Sprite), which Unity 2022.3 and later
    // fill too; 2021.3 reads the names from `nameFileIdTable` below.
    out.push_str("  internalIDToNameTable:");
    out.push_str(if frames.is_empty() { " []\n" } else { "\n" });
    for &(i, name, _) in &frames {
        let _ = writeln!(out, "  - first:\n      213: {}\n    second: {}", ids.internal(i), scalar(name));
    }
    let filter = if job.pixel_art { 0 } else { 1 };
    let max_size = w.max(h).next_power_of_two().clamp(2048, UNITY_MAX_TEXTURE);
    let ppu = pixels_per_unit(job.pixels_per_unit);
    let _ = write!(
        out,
        "  externalObjects: {{}}\n  serializedVersion: 12\n  mipmaps:\n    mipMapMode: 0\n    enableMipMap: 0\n    \
         sRGBTexture: 1\n    linearTexture: 0\n    fadeOut: 0\n    borderMipMap: 0\n    mipMapsPreserveCoverage: 0\n    \
         alphaTestReferenceValue: 0.5\n    mipMapFadeDistanceStart: 1\n    mipMapFadeDistanceEnd: 3\n  bumpmap:\n    \
         convertToNormalMap: 0\n    externalNormalMap: 0\n    heightScale: 0.25\n    normalMapFilter: 0\n  isReadable: 0\n  \
         streamingMipmaps: 0\n  streamingMipmapsPriority: 0\n  vTOnly: 0\n  ignoreMasterTextureLimit: 0\n  \
         grayScaleToAlpha: 0\n  generateCubemap: 6\n  cubemapConvolution: 0\n  seamlessCubemap: 0\n  textureFormat: 1\n  \
         maxTextureSize: {max_size}\n  textureSettings:\n    serializedVersion: 2\n    filterMode: {filter}\n    aniso: 1\n    \
         mipBias: 0\n    wrapU: 1\n    wrapV: 1\n    wrapW: 1\n  nPOTScale: 0\n  lightmap: 0\n  compressionQuality: 50\n  \
         spriteMode: 2\n  spriteExtrude: 1\n  spriteMeshType: 1\n  alignment: 0\n  spritePivot: {{x: 0.5, y: 0.5}}\n  \
         spritePixelsToUnits: {ppu}\n  spriteBorder: {{x: 0, y: 0, z: 0, w: 0}}\n  spriteGenerateFallbackPhysicsShape: 1\n  \
         alphaUsage: 1\n  alphaIsTransparency: 1\n  spriteTessellationDetail: -1\n  textureType: 8\n  textureShape: 1\n  \
         singleChannelComponent: 0\n  flipbookRows: 1\n  flipbookColumns: 1\n  maxTextureSizeSet: 0\n  \
         compressionQualitySet: 0\n  textureFormatSet: 0\n  ignorePngGamma: 0\n  applyGammaDecoding: 0\n  \
         cookieLightType: 0\n  platformSettings:\n  - serializedVersion: 3\n    buildTarget: DefaultTexturePlatform\n    \
         maxTextureSize: {max_size}\n    resizeAlgorithm: 0\n    textureFormat: -1\n    textureCompression: 0\n    \
         compressionQuality: 50\n    crunchedCompression: 0\n    allowsAlphaSplitting: 0\n    overridden: 0\n    \
         androidETC2FallbackOverride: 0\n    forceMaximumCompressionQuality_BC6H_BC7: 0\n  spriteSheet:\n    \
         serializedVersion: 2\n    sprites:"
    );
    out.push_str(if frames.is_empty() { " []\n" } else { "\n" });
    for &(i, name, p) in &frames {
        let ([x, y, rw, rh], (px, py)) = sprite_rect(p, h, atlas.frame_size);
        let _ = writeln!(
            out,
            "    - serializedVersion: 2\n      name: {}\n      rect:\n        serializedVersion: 2\n        x: {x}\n        \
             y: {y}\n        width: {rw}\n        height: {rh}\n      alignment: 9\n      pivot: {{x: {px}, y: {py}}}\n      \
             border: {{x: 0, y: 0, z: 0, w: 0}}\n      outline: []\n      physicsShape: []\n      tessellationDetail: 0\n      \
             bones: []\n      spriteID: {}\n      internalID: {}\n      vertices: []\n      indices: \n      edges: []\n      \
             weights: []",
            scalar(name),
            sprite_id(name),
            ids.internal(i)
        );
    }
    // The sheet's own sprite fields (Single mode's), as Unity leaves them in Multiple mode.
    out.push_str(
        "    outline: []\n    physicsShape: []\n    bones: []\n    spriteID: 5e97eb03825dee720800000000000000\n    \
         internalID: 0\n    vertices: []\n    indices: \n    edges: []\n    weights: []\n    secondaryTextures: []\n    \
         nameFileIdTable:",
    );
    out.push_str(if frames.is_empty() { " {}\n" } else { "\n" });
    for &(i, name, _) in &frames {
        let _ = writeln!(out, "      {}: {}", scalar(name), ids.internal(i));
    }
    out.push_str(
        "  spritePackingTag: \n  pSDRemoveMatte: 0\n  pSDShowRemoveMatteOption: 0\n  userData: \n  assetBundleName: \n  \
         assetBundleVariant: \n",
    );
    out
}

/// A frame's rectangle in Unity's texture space (`[x, y, width, height]`, y from the bottom of
/// a page `page_h` high) and its pivot as a fraction of that rectangle from its bottom-left;
/// `frame` is the untrimmed frame's size, of which the placement's pivot is a fraction (from
/// the top-left).
fn sprite_rect(p: &Placement, page_h: u32, frame: (u32, u32)) -> ([u32; 4], (f32, f32)) {
    let y = page_h.saturating_sub(p.y + p.h);
    // The pivot in pixels of the untrimmed frame (to a hundredth, as points are: the fraction
    // it is kept as is an f32's), then of the kept rectangle.
    let pivot_x = hundredths(p.pivot.0 * frame.0 as f32);
    let pivot_top = hundredths(p.pivot.1 * frame.1 as f32);
    let fraction = |offset: f64, size: u32| if size == 0 { 0.5 } else { offset / f64::from(size) };
    let px = fraction(pivot_x - f64::from(p.source_x), p.w);
    // Measured up from the kept rectangle's bottom, which is `source_y + h` down the frame.
    let py = fraction(f64::from(p.source_y + p.h) - pivot_top, p.h);
    // `+ 0.0` writes a pivot on the edge as `0`, never `-0`.
    ([p.x, y, p.w, p.h], (px as f32 + 0.0, py as f32 + 0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placement(x: u32, y: u32, w: u32, h: u32, source: (u32, u32), pivot: (f32, f32)) -> Placement {
        Placement {
            name: String::new(),
            animation: String::new(),
            key: (0, 0, 0),
            flipped: false,
            x,
            y,
            w,
            h,
            source_x: source.0,
            source_y: source.1,
            pivot,
            duration: 0.1,
            looping: true,
            points: Vec::new(),
        }
    }

    #[test]
    fn rects_are_measured_from_the_bottom_and_pivots_from_the_kept_rectangles_bottom_left() {
        // A whole 64x64 frame at the top-left of a 128-high page, pivot at its bottom centre.
        let whole = placement(0, 0, 64, 64, (0, 0), (0.5, 1.0));
        assert_eq!(sprite_rect(&whole, 128, (64, 64)), ([0, 64, 64, 64], (0.5, 0.0)));
        // Trimmed to 20x40 starting at (30, 10) of the frame: the pivot (32, 64) is 2 px right
        // of the kept rectangle's left and 14 px below its bottom (it ends 50 px down).
        let trimmed = placement(70, 4, 20, 40, (30, 10), (0.5, 1.0));
        assert_eq!(sprite_rect(&trimmed, 128, (64, 64)), ([70, 84, 20, 40], (0.1, -0.35)));
    }
}
