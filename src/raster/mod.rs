//! The rasterizer: posed meshes + camera + lights → an RGBA image, on the CPU.
//!
//! Stages, one function each, named after the GPU stages they imitate:
//!
//! ```text
//! vertex (model → clip, normals → view) → clip + setup (setup.rs) → bin (tile.rs)
//!   → raster per tile, in parallel: opaque bins visibility then shading (deferred.rs) —
//!     per sample (visibility.rs) or, supersampled and shaded per pixel, per pixel as
//!     multisampling does it (msaa.rs) — other bins forward, blended triangles last and back
//!     to front (forward.rs)
//!   → fragment (interpolate.rs, shade.rs) → resolve (resolve.rs)
//! ```
//!
//! The tile buffers (buffers.rs) are plain data that tile.rs hands to the passes; each pass is
//! a function over them in its own
//! module, and every pass finds the samples a triangle covers through the one hierarchical
//! walk and row stepper of coverage.rs.
//!
//! Every draw runs the same stages into one kind of output pixel, chosen by type
//! (`resolve::Resolve`) and by the fragment output (`shade::FragmentOutput`): the colour
//! image ([`Renderer::render`]) or, only when asked, the surface maps of 2D lighting — view-space
//! normals ([`Renderer::render_normals`]) and linear view depth ([`Renderer::render_depth`]).
//! A map is a second draw of the same scene, so its coverage, alpha testing and sample choices
//! are the colour's by construction and the colour path pays nothing for the maps.
//!
//! Invariants:
//! * **Determinism.** Setup runs in parallel but collects in submission order; each tile draws
//!   its triangles in that order into buffers it owns. No pixel is shared between threads, no
//!   atomics, no `unsafe`, so any thread count gives the same bytes. The deferred path keeps
//!   the same sample as in-order drawing would (the first of equal depths): both take their
//!   samples, depths and depth test from coverage.rs — the row stepper, and for the pixel pass
//!   of supersampled bins (msaa.rs) the same integer edge functions, sample depths and depth
//!   test a pixel at a time (a unit test checks it keeps the stepper's samples bit for bit).
//! * **Work per pixel.** Opaque samples are shaded once, after visibility is known; with
//!   supersampling, once per pixel and triangle by default ([`ShadingRate`]).
//! * **Fill rule.** Fixed-point edge functions (8 sub-pixel bits) with the top-left rule: two
//!   triangles sharing an edge cover each sample along it exactly once.
//! * **Colour.** Tiles hold linear-light premultiplied `f32`; the resolve averages samples in
//!   that space and only then encodes sRGB bytes with straight alpha.
//!
//! Rejected alternatives: one shared framebuffer with per-row locks or `unsafe` disjoint writes
//! (euc's approach). Tile-owned buffers keep the working set in cache (a 64×64 tile is 80 KiB of
//! colour + depth) and need neither. For the maps, a G-buffer written in the colour draw (normal
//! and depth beside colour in every sample): one pass instead of three, but every tile buffer
//! and every resolve path would carry eight channels instead of four, on the colour path too.

mod buffers;
pub(crate) mod camera;
pub(crate) mod color;
mod context;
mod count;
mod coverage;
mod deferred;
mod forward;
pub(crate) mod image;
mod interpolate;
mod lanes;
mod msaa;
mod resolve;
pub(crate) mod scene;
mod setup;
mod shade;
pub(crate) mod texture;
mod tile;
mod visibility;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use glam::{Mat3, Vec2, Vec3, Vec4};
use rayon::prelude::*;

pub use camera::{Camera, OrbitView, Projection};
pub(crate) use color::{linear_to_srgb, srgb_to_linear};
pub(crate) use color::{linear_to_srgb_exact, srgb_to_linear_exact};
pub(crate) use image::DepthPixel;
pub use image::{DepthImage, Image, PixelRows};
pub(crate) use scene::MAX_SAMPLES;
pub use scene::{Light, MAX_IMAGE_SIDE, RenderOptions, Scene, SceneObject, Shading, ShadingRate};
pub use texture::Filter;
pub(crate) use texture::MipChain;

use crate::error::{Error, Result};
use crate::model::{AlphaMode, Material, MinFilter, Texture};
use buffers::TileRect;
use context::{DrawContext, FragmentNeeds};
use resolve::{DepthResolver, NormalResolver, OutputBand, PixelResolver, Resolve};
use setup::{CORNER_ATTRS, ColourPlanes, ScreenVertex, Triangle};
use shade::{DrawMaterial, FragmentOutput, Shader};

/// Tile side in output pixels at 1× sampling; with supersampling a tile covers `64 / ssaa`
/// output pixels so its sample buffers stay the same size.
const TILE_SAMPLES: u32 = 64;

/// Triangles per parallel setup job: large enough to amortise scheduling.
const SETUP_CHUNK: usize = 512;
/// Vertices per parallel vertex-stage job.
const VERTEX_CHUNK: usize = 4096;

/// Renders scenes, keeping prepared textures (mip chains) between calls so a sequence of frames
/// pays for each texture once.
///
/// The cache holds each texture weakly: a chain lives only as long as some model still holds
/// its texture, so a renderer shared by a `thumbnail` batch or the cases of `check` keeps the
/// chains of the models in flight (each charged to its model's memory budget, see
/// [`Texture::prepared_bytes`]) and never those of finished ones.
#[derive(Debug, Default)]
pub struct Renderer {
    textures: Mutex<HashMap<TextureKey, PreparedTexture>>,
    /// The buffers of finished draws, reused by the next ones.
    frame_buffers: Mutex<Vec<FrameBuffers>>,
    /// Each draw runs on its caller's thread instead of splitting its stages over the pool.
    serial_draws: bool,
}

/// What one draw fills before its tiles run, kept for the next draw: a sprite job draws
/// hundreds of small frames, and a dense mesh sets up megabytes of triangles per frame, so
/// fresh buffers would cost an allocation per tile and a page fault per 4 KiB every frame.
#[derive(Debug, Default)]
struct FrameBuffers {
    /// The set-up triangles, in submission order.
    triangles: Vec<Triangle>,
    /// Their vertex colours, one entry a triangle, when a part of the draw has vertex colours;
    /// else empty.
    colours: Vec<ColourPlanes>,
    /// One per part, in the order of the parts.
    materials: Vec<DrawMaterial>,
    /// The current part's vertices after the vertex stage: clip positions and projections.
    clip: Vec<Vec4>,
    screen: Vec<ScreenVertex>,
    /// Which of a part's triangles setup keeps.
    kept: Vec<u32>,
    /// Per tile, the indices of the triangles that touch it.
    bins: Vec<Vec<u32>>,
}

/// A texture's address and how it is sampled.
type TextureKey = (usize, Sampling);
/// The texture, held weakly (a `Weak` keeps the allocation, so the address stays unique while
/// the entry exists, but not the texels), and its mip chains.
type PreparedTexture = (Weak<Texture>, Chains);

/// A texture's mip chains: its colour, and the part of it that glows where it has one
/// ([`MipChain::glow`]).
#[derive(Debug, Clone)]
struct Chains {
    colour: Arc<MipChain>,
    glow: Option<Arc<MipChain>>,
}

impl Chains {
    fn new(texture: &Texture, sampling: Sampling) -> Chains {
        let colour = match sampling.alpha {
            true => MipChain::new(texture, sampling.wrap),
            false => MipChain::without_alpha(texture, sampling.wrap),
        };
        let glow = MipChain::glow(texture, sampling.wrap, sampling.alpha).map(Arc::new);
        Chains { colour: Arc::new(colour), glow }
    }

    fn bytes(&self) -> u64 {
        self.colour.bytes() + self.glow.as_ref().map_or(0, |g| g.bytes())
    }
}

fn texture_key(texture: &Arc<Texture>, sampling: Sampling) -> TextureKey {
    (Arc::as_ptr(texture) as usize, sampling)
}

/// How a material samples its texture: one mip chain for each way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Sampling {
    /// Repeated outside 0..1, else clamped.
    wrap: bool,
    /// With the texture's alpha; an opaque material samples its colour without it.
    alpha: bool,
}

impl Sampling {
    fn of(material: &Material) -> Sampling {
        Sampling { wrap: material.wrap, alpha: material.alpha_mode != AlphaMode::Opaque }
    }
}

impl Renderer {
    /// A renderer with an empty texture cache, whose draws split their stages (vertices,
    /// triangles, tiles) over the rayon pool: for one image at a time.
    pub fn new() -> Renderer {
        Renderer::default()
    }

    /// A renderer for callers that run many draws side by side on the pool (the cells of a
    /// sprite sheet): each draw runs whole on the thread that calls it. The callers' own
    /// parallelism keeps the threads busy, and splitting a small draw again costs more in
    /// scheduling, per-split buffers and copies than it gains. The images are the same.
    pub fn for_parallel_draws() -> Renderer {
        Renderer { serial_draws: true, ..Renderer::default() }
    }

    /// Renders `scene` into a new image.
    ///
    /// # Errors
    /// An empty or oversized target, or `ssaa` outside 1..=4.
    pub fn render(&self, scene: &Scene, options: &RenderOptions) -> Result<Image> {
        let mut image = Image::default();
        self.render_into(scene, options, &mut image)?;
        Ok(image)
    }

    /// Renders `scene` into `image`, resizing it to the options' size. A caller rendering many
    /// frames saves a fresh allocation per frame by passing the same image back (a new
    /// multi-megabyte buffer costs a page fault per 4 KiB when first written).
    ///
    /// # Errors
    /// As [`Renderer::render`]; `image` is left unchanged then.
    pub fn render_into(&self, scene: &Scene, options: &RenderOptions, image: &mut Image) -> Result<()> {
        let target = Target::new(options)?;
        let resolver = PixelResolver::new(options.background);
        // What no triangle touches is the background; tiles overwrite the rest.
        image.fill(options.width, options.height, resolver.encode([0.0; 4]))?;
        self.draw(scene, options, &target, FragmentOutput::Color, &resolver, &mut image.rows_mut().pixels());
        Ok(())
    }

    /// Renders `scene` into `rows`, the options' size: a cell's rectangle of a sheet page, say,
    /// drawn where it goes instead of into an image of its own and copied there.
    ///
    /// # Errors
    /// As [`Renderer::render`]; rows of another size. `rows` is left unchanged then.
    pub fn render_into_rows(&self, scene: &Scene, options: &RenderOptions, rows: &mut PixelRows) -> Result<()> {
        let target = Target::new(options)?;
        if (rows.width(), rows.height()) != (options.width, options.height) {
            return Err(Error::Size(format!(
                "rows of {}x{} pixels for a {}x{} render",
                rows.width(),
                rows.height(),
                options.width,
                options.height
            )));
        }
        let resolver = PixelResolver::new(options.background);
        let empty = resolver.encode([0.0; 4]);
        let mut pixels = rows.pixels();
        for row in pixels.iter_mut() {
            row.fill(empty);
        }
        self.draw(scene, options, &target, FragmentOutput::Color, &resolver, &mut pixels);
        Ok(())
    }

    /// Renders the view-space normals of `scene` as a normal map: per pixel the unit normal
    /// that shading uses (interpolated from the vertices, facing the viewer on back faces),
    /// averaged over the pixel's samples and renormalised, encoded `n · 0.5 + 0.5` with x
    /// right, y up and z towards the viewer; alpha is the colour render's. Uncovered pixels
    /// are [128, 128, 255, 0]. The background option does not apply.
    ///
    /// # Errors
    /// As [`Renderer::render`].
    pub fn render_normals(&self, scene: &Scene, options: &RenderOptions) -> Result<Image> {
        let target = Target::new(options)?;
        let mut image = Image::default();
        image.fill(options.width, options.height, NormalResolver::EMPTY)?;
        self.draw(scene, options, &target, FragmentOutput::Normal, &NormalResolver, &mut image.rows_mut().pixels());
        Ok(image)
    }

    /// Renders the linear view depth of `scene`: per pixel the distance in front of the camera
    /// along its axis, in world units, averaged over the pixel's covered samples (weighted by
    /// coverage), with the colour render's alpha.
    ///
    /// # Errors
    /// As [`Renderer::render`].
    pub fn render_depth(&self, scene: &Scene, options: &RenderOptions) -> Result<DepthImage> {
        let target = Target::new(options)?;
        let (w, h) = (options.width, options.height);
        let mut pixels = vec![DepthPixel::EMPTY; w as usize * h as usize];
        // Clip z = a · view z + b for the camera's projections (row z of the matrix).
        let m = scene.camera.view_to_clip;
        let output = FragmentOutput::ViewDepth { a: m.z_axis.z, b: m.w_axis.z };
        self.draw(
            scene,
            options,
            &target,
            output,
            &DepthResolver,
            &mut pixels.chunks_exact_mut(w as usize).collect::<Vec<_>>(),
        );
        Ok(DepthImage { width: w, height: h, pixels })
    }

    /// Draws `scene` into `rows` (the image's, top to bottom, filled with what no triangle
    /// touches), writing `output` per fragment and resolving it with `resolver`.
    fn draw<R: Resolve>(
        &self,
        scene: &Scene,
        options: &RenderOptions,
        target: &Target,
        output: FragmentOutput,
        resolver: &R,
        rows: &mut [&mut [R::Pixel]],
    ) {
        let mut frame = self.frame_buffers();
        let shader = Shader::new(options, output);
        self.prepare(scene, options, &shader, target, &mut frame);
        let FrameBuffers { triangles, colours, materials, bins, .. } = &mut frame;
        tile::bin_into(bins, triangles, target.tile as i32, target.tiles_x, target.tiles_y);
        let ctx = DrawContext::new(triangles, colours, materials, &shader, options);
        // A row of tiles resolves into its own band of image rows.
        let band_rows = (target.tile / options.ssaa) as usize;
        let draw_band = |(ty, rows): (usize, &mut [&mut [R::Pixel]])| {
            let mut band = OutputBand { rows, first_row: ty * band_rows };
            for tx in 0..target.tiles_x {
                if let Some(bin) = bins.get(ty * target.tiles_x + tx)
                    && !bin.is_empty()
                {
                    tile::draw_and_resolve(target.tile_rect(tx, ty), bin, &ctx, resolver, &mut band);
                }
            }
        };
        match self.serial_draws {
            true => rows.chunks_mut(band_rows).enumerate().for_each(draw_band),
            false => rows.par_chunks_mut(band_rows).enumerate().for_each(draw_band),
        }
        self.recycle_frame_buffers(frame);
    }

    /// How many triangles cover each sample (row-major, `width·ssaa × height·ssaa`), ignoring
    /// depth: a diagnostic for the fill rule (every interior sample of a closed surface seen
    /// from outside is covered exactly once by its front faces).
    ///
    /// # Errors
    /// As [`Renderer::render`].
    pub fn coverage(&self, scene: &Scene, options: &RenderOptions) -> Result<Vec<u16>> {
        let target = Target::new(options)?;
        let mut frame = FrameBuffers::default();
        let shader = Shader::new(options, FragmentOutput::Color);
        self.prepare(scene, options, &shader, &target, &mut frame);
        let FrameBuffers { triangles, colours, materials, bins, .. } = &mut frame;
        tile::bin_into(bins, triangles, target.tile as i32, target.tiles_x, target.tiles_y);
        let ctx = DrawContext::new(triangles, colours, materials, &shader, options);
        let (sw, sh) = (target.width as usize, target.height as usize);
        let mut counts = vec![0u16; sw * sh];
        let target = &target;
        let tiles = (0..target.tiles_y).flat_map(|ty| (0..target.tiles_x).map(move |tx| target.tile_rect(tx, ty)));
        for (rect, bin) in tiles.zip(bins.iter()) {
            for (row, src) in count::count(rect, bin, &ctx).chunks_exact(rect.w as usize).enumerate() {
                let start = (rect.y0 as usize + row) * sw + rect.x0 as usize;
                if let Some(dst) = counts.get_mut(start..start + rect.w as usize) {
                    dst.copy_from_slice(src);
                }
            }
        }
        Ok(counts)
    }

    /// Empty frame buffers, reused from an earlier draw when some are free.
    fn frame_buffers(&self) -> FrameBuffers {
        let mut pool = self.frame_buffers.lock().unwrap_or_else(|e| e.into_inner());
        pool.pop().unwrap_or_default()
    }

    /// Empties `frame` (dropping its materials' textures) and keeps it for later draws; the
    /// pool keeps one per thread that may draw.
    fn recycle_frame_buffers(&self, mut frame: FrameBuffers) {
        frame.triangles.clear();
        frame.colours.clear();
        frame.materials.clear();
        frame.clip.clear();
        frame.screen.clear();
        let mut pool = self.frame_buffers.lock().unwrap_or_else(|e| e.into_inner());
        if pool.len() <= rayon::current_num_threads() {
            pool.push(frame);
        }
    }

    /// Vertex stage, clipping and setup for every object into `frame`'s triangles, with its
    /// material table; each triangle with the planes `shader` reads for its material.
    fn prepare(
        &self,
        scene: &Scene,
        options: &RenderOptions,
        shader: &Shader,
        target: &Target,
        frame: &mut FrameBuffers,
    ) {
        let world_to_clip = scene.camera.world_to_clip();
        let size = (target.width, target.height);
        let FrameBuffers { triangles, colours, materials, clip, screen, kept, .. } = frame;
        materials.clear();
        // Colour planes are set up for every triangle of a draw where any part has vertex
        // colours (white for the others), so that they are found by the triangle's index.
        let with_colours = scene.objects.iter().flat_map(|o| &o.posed.parts).any(|p| !p.colors.is_empty());
        let unlit = shader.unlit();
        for object in &scene.objects {
            let model_to_clip = world_to_clip * object.model_to_world;
            // Normals go to view space for lights defined there; the inverse transpose keeps
            // them perpendicular under non-uniform scale.
            let model_to_view = Mat3::from_mat4(scene.camera.world_to_view * object.model_to_world);
            let normal_matrix = model_to_view.inverse().transpose();
            for part in &object.posed.parts {
                let material_index = materials.len() as u32;
                let material = self.draw_material(part.material, !part.colors.is_empty());
                let planes = FragmentNeeds::of(if material.unlit { &unlit } else { shader }, &material).planes();
                materials.push(material);
                // Each position once, where the part says which vertices share one.
                let shared = part.shared.filter(|s| s.triangles.len() == part.indices.len());
                let corners = shared.map_or(part.indices, |s| s.triangles.as_slice());
                // Positions only: the other attributes are asked for by the few triangles that
                // cover a sample. Clip positions first, then their projections in lanes.
                let to_clip = |p: &Vec3| model_to_clip * p.extend(1.0);
                let vertex_to_clip = |v: &u32| to_clip(part.positions.get(*v as usize).unwrap_or(&Vec3::NAN));
                let vertices = shared.map_or(part.positions.len(), |s| s.representatives.len());
                screen.clear();
                screen.resize(vertices, ScreenVertex::NOT_FINITE);
                if self.serial_draws || vertices <= VERTEX_CHUNK {
                    clip.clear();
                    match shared {
                        Some(s) => clip.extend(s.representatives.iter().map(vertex_to_clip)),
                        None => clip.extend(part.positions.iter().map(to_clip)),
                    }
                    setup::project(clip, screen, size);
                } else {
                    match shared {
                        Some(s) => s.representatives.par_iter().map(vertex_to_clip).collect_into_vec(clip),
                        None => part.positions.par_iter().map(to_clip).collect_into_vec(clip),
                    }
                    screen
                        .par_chunks_mut(VERTEX_CHUNK)
                        .zip(clip.par_chunks(VERTEX_CHUNK))
                        .for_each(|(screen, clip)| setup::project(clip, screen, size));
                }
                let opaque = part.material.alpha_mode == AlphaMode::Opaque;
                // A non-finite attribute drops its triangles even where the material does not
                // read it: uvs no plane needs are read only when some uv of the part is not
                // finite.
                let read_uvs = planes.uv || !all_finite(part.uvs);
                let attrs = |i: usize| -> [f32; CORNER_ATTRS] {
                    let uv = if read_uvs { part.uvs.get(i).copied().unwrap_or(Vec2::ZERO) } else { Vec2::ZERO };
                    let n = normal_matrix * part.normals.get(i).copied().unwrap_or(Vec3::Z);
                    let [r, g, b, a] = if with_colours { vertex_colour(part.colors.get(i), opaque) } else { [1.0; 4] };
                    [uv.x, uv.y, n.x, n.y, n.z, r, g, b, a]
                };
                let (clip, screen) = (&*clip, &*screen);
                let cull = options.cull_back_faces && !part.material.two_sided;
                let part_setup = setup::PartSetup { material: material_index, cull, planes };
                let vertices = setup::Corners { clip, screen, attrs };
                let setup = |triangles: (&[[u32; 3]], &[[u32; 3]]),
                             kept: &mut Vec<u32>,
                             out: &mut Vec<Triangle>,
                             colours: &mut Vec<_>| {
                    let colours = with_colours.then_some(colours);
                    setup::setup_triangles(triangles, &vertices, size, part_setup, kept, out, colours)
                };
                if self.serial_draws || part.indices.len() <= SETUP_CHUNK {
                    // One job's worth: straight into the frame's buffers.
                    setup((part.indices, corners), kept, triangles, colours);
                } else {
                    let chunks: Vec<(Vec<Triangle>, Vec<ColourPlanes>)> = part
                        .indices
                        .par_chunks(SETUP_CHUNK)
                        .zip(corners.par_chunks(SETUP_CHUNK))
                        .map(|chunk| {
                            let (mut out, mut chunk_colours) = (Vec::new(), Vec::new());
                            setup(chunk, &mut Vec::new(), &mut out, &mut chunk_colours);
                            (out, chunk_colours)
                        })
                        .collect();
                    for (chunk, chunk_colours) in chunks {
                        triangles.extend(chunk);
                        colours.extend(chunk_colours);
                    }
                }
            }
        }
    }

    /// What the fragment stage draws `material` with; `vertex_colours` when its part has them.
    fn draw_material(&self, material: &Material, vertex_colours: bool) -> DrawMaterial {
        let [r, g, b, a] = material.base_color;
        let chains = material.texture.as_ref().map(|t| self.mip_chains(t, Sampling::of(material)));
        let (texture, glow) = chains.map_or((None, None), |c| (Some(c.colour), c.glow));
        let texture_size = texture.as_ref().map(|t| t.size()).unwrap_or(Vec2::ONE);
        DrawMaterial {
            base: [r * a, g * a, b * a, a],
            texture,
            glow,
            texture_size,
            alpha: material.alpha_mode,
            vertex_colours,
            unlit: material.unlit,
            nearest: material.nearest,
            minify: material.minify.map(|f| match f {
                MinFilter::Nearest => Filter::Nearest,
                MinFilter::Linear => Filter::Bilinear,
                MinFilter::Mipmapped => Filter::Trilinear,
            }),
        }
    }

    /// Makes the mip chains of `materials`' textures now, side by side on the pool, so that
    /// the first draws of a job find them made: otherwise every first draw of a job that needs
    /// a chain not yet cached makes the same chain at once.
    pub fn prepare_textures(&self, materials: &[Material]) {
        let mut keys = std::collections::HashSet::new();
        let wanted: Vec<(&Arc<Texture>, Sampling)> = materials
            .iter()
            .filter_map(|m| m.texture.as_ref().map(|t| (t, Sampling::of(m))))
            .filter(|&(t, sampling)| keys.insert(texture_key(t, sampling)))
            .collect();
        wanted.into_par_iter().for_each(|(texture, sampling)| drop(self.mip_chains(texture, sampling)));
    }

    fn mip_chains(&self, texture: &Arc<Texture>, sampling: Sampling) -> Chains {
        let key = texture_key(texture, sampling);
        if let Some((_, chains)) = self.live_textures().get(&key) {
            return chains.clone();
        }
        // Made without the lock: making a chain runs on the pool, where a thread waiting for
        // its parts may take up another draw that needs the cache. Two draws that race make
        // the same chains; the first one in is kept.
        let chains = Chains::new(texture, sampling);
        self.live_textures().entry(key).or_insert((Arc::downgrade(texture), chains)).1.clone()
    }

    /// The locked texture cache, without the chains of textures no model holds any more.
    fn live_textures(&self) -> std::sync::MutexGuard<'_, HashMap<TextureKey, PreparedTexture>> {
        let mut cache = self.textures.lock().unwrap_or_else(|e| e.into_inner());
        cache.retain(|_, (texture, _)| texture.strong_count() > 0);
        cache
    }

    /// Bytes held by cached mip chains (of textures that are still alive).
    pub fn cached_texture_bytes(&self) -> u64 {
        self.live_textures().values().map(|(_, chains)| chains.bytes()).sum()
    }
}

/// A vertex's colour as its corners carry it: premultiplied by its alpha, which an opaque
/// material ignores (as glTF's opaque mode and GL do); white where the part has none.
#[inline(always)]
fn vertex_colour(colour: Option<&[f32; 4]>, opaque: bool) -> [f32; 4] {
    match colour {
        None => [1.0; 4],
        Some(&[r, g, b, _]) if opaque => [r, g, b, 1.0],
        Some(&[r, g, b, a]) => [r * a, g * a, b * a, a],
    }
}

/// Whether every coordinate of `values` is finite: counted as integers (exponent bits all set),
/// which compiles to vector compares, where a test of each float branches or stays scalar.
fn all_finite(values: &[Vec2]) -> bool {
    const EXPONENT: u32 = 0x7f80_0000;
    let not_finite = |c: f32| (c.to_bits() & EXPONENT == EXPONENT) as u32;
    values.iter().map(|v| not_finite(v.x) + not_finite(v.y)).sum::<u32>() == 0
}

/// Renders `scene` with a fresh [`Renderer`].
///
/// # Errors
/// As [`Renderer::render`].
pub fn render(scene: &Scene, options: &RenderOptions) -> Result<Image> {
    Renderer::new().render(scene, options)
}

/// The sample grid of one render and its tiling.
struct Target {
    width: u32,
    height: u32,
    tile: u32,
    tiles_x: usize,
    tiles_y: usize,
}

impl Target {
    fn new(options: &RenderOptions) -> Result<Target> {
        let (w, h, s) = (options.width, options.height, options.ssaa);
        if !(1..=4).contains(&s) {
            return Err(Error::bad_option("ssaa", s, "must be 1 to 4"));
        }
        if w == 0 || h == 0 || w > MAX_IMAGE_SIDE || h > MAX_IMAGE_SIDE {
            return Err(Error::Size(format!("image size {w}x{h} is outside 1..={MAX_IMAGE_SIDE} per side")));
        }
        if w as u64 * h as u64 * (s * s) as u64 > MAX_SAMPLES {
            return Err(Error::Size(format!("{w}x{h} with ssaa {s} exceeds {MAX_SAMPLES} samples")));
        }
        // A whole number of output pixels per tile keeps the resolve inside one tile.
        let tile = (TILE_SAMPLES / s) * s;
        let (width, height) = (w * s, h * s);
        Ok(Target {
            width,
            height,
            tile,
            tiles_x: width.div_ceil(tile) as usize,
            tiles_y: height.div_ceil(tile) as usize,
        })
    }

    /// The sample rectangle of tile (`tx`, `ty`): whole tiles, cut at the right and bottom.
    fn tile_rect(&self, tx: usize, ty: usize) -> TileRect {
        let t = self.tile as i32;
        let (x0, y0) = (tx as i32 * t, ty as i32 * t);
        TileRect { x0, y0, w: t.min(self.width as i32 - x0), h: t.min(self.height as i32 - y0) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_chains_live_only_as_long_as_their_texture() {
        let renderer = Renderer::new();
        let texture = |n: u32| Arc::new(Texture::new(n, n, vec![255; (n * n * 4) as usize], true).unwrap());
        let (a, b) = (texture(64), texture(32));
        let (wrap, clamp) = (Sampling { wrap: true, alpha: true }, Sampling { wrap: false, alpha: true });
        let first = renderer.mip_chains(&a, wrap).colour;
        assert!(Arc::ptr_eq(&first, &renderer.mip_chains(&a, wrap).colour), "a second use reuses the chain");
        renderer.mip_chains(&b, clamp);
        let chain_bytes = |n: u32| Texture::prepared_bytes(n, n) - u64::from(n * n * 4);
        assert_eq!(renderer.cached_texture_bytes(), chain_bytes(64) + chain_bytes(32));
        drop((a, first));
        assert_eq!(renderer.cached_texture_bytes(), chain_bytes(32));
        drop(b);
        assert_eq!(renderer.cached_texture_bytes(), 0);
    }

    #[test]
    fn chains_made_ahead_are_the_ones_draws_use() {
        let renderer = Renderer::new();
        // 300² texels: several tasks' worth on the first levels.
        let texels: Vec<u8> = (0..300 * 300 * 4).map(|i| (i * 7 % 251) as u8).collect();
        let texture = Arc::new(Texture::new(300, 300, texels, true).unwrap());
        let material = |wrap| Material { texture: Some(texture.clone()), wrap, ..Material::named(String::from("m")) };
        // Two materials share one chain, a third clamps: two chains, each made once.
        renderer.prepare_textures(&[material(true), material(true), material(false)]);
        let chain_bytes = Texture::prepared_bytes(300, 300) - 300 * 300 * 4;
        assert_eq!(renderer.cached_texture_bytes(), 2 * chain_bytes);
        let ahead = renderer.mip_chains(&texture, Sampling { wrap: true, alpha: false }).colour;
        assert_eq!(renderer.cached_texture_bytes(), 2 * chain_bytes, "a draw makes no chain of its own");
        // Made on the pool, texel by texel: the chain a single thread makes.
        let alone = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let serial = alone.install(|| MipChain::without_alpha(&texture, true));
        assert_eq!(format!("{:?}", *ahead), format!("{serial:?}"));
    }
}
