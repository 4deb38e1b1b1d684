// PixiJS 8's own `Assets.load` on the first JSON of a sheet, from node, printing one JSON line
// of what a game gets: the loaded Spritesheet and its `linkedSheets` (the pages that
// `meta.related_multi_packs` names, in its order), each with its image and its `animations`
// as frame names, and every animation joined over them, with how it plays, as the sheet guide's
// snippet (docs/guide/sheets.md) does, and every frame's rectangle, anchor and `flipX`.
//
//   node pixi_multipack.cjs SHEET-0.json
//
// Everything runs in Pixi's code (resolver, `loadJson`, `loadTextures`, the spritesheet loader
// that follows `related_multi_packs`, `Spritesheet.parse`, the cache) except the environment
// it is given through `DOMAdapter`, the seam Pixi has for non-browser hosts: `fetch` reads the
// file, and an image is the PNG's size read from its header (node cannot decode into an
// `HTMLImageElement`; Pixi needs only the size to cut the frames). A page whose image or JSON
// is missing fails the load. Run with the engines folder (where pixi.js is installed) as the
// working folder.
globalThis.navigator = { userAgent: 'node', gpu: undefined };
const path = require('path');
const fs = require('fs');
const { pathToFileURL, fileURLToPath } = require('url');
const pixi = require('module').createRequire(path.join(process.cwd(), 'package.json'))('pixi.js');

const filePath = (url) => (url.startsWith('file:') ? fileURLToPath(url) : url);

/** An image element with the size of the PNG at `src` (the IHDR chunk), loaded at once. */
class PngSize {
  set src(url) {
    this._src = url;
    let png;
    try {
      png = fs.readFileSync(filePath(url));
    } catch (e) {
      setTimeout(() => this.onerror && this.onerror(e));
      return;
    }
    if (png.toString('latin1', 1, 4) !== 'PNG' || png.toString('latin1', 12, 16) !== 'IHDR') {
      setTimeout(() => this.onerror && this.onerror(new Error(`${url} is not a PNG`)));
      return;
    }
    this.naturalWidth = this.width = png.readUInt32BE(16);
    this.naturalHeight = this.height = png.readUInt32BE(20);
    this.complete = true;
  }
  get src() {
    return this._src;
  }
}

pixi.DOMAdapter.set({
  ...pixi.DOMAdapter.get(),
  createImage: () => new PngSize(),
  getNavigator: () => globalThis.navigator,
  getBaseUrl: () => pathToFileURL(process.cwd() + path.sep).href,
  fetch: async (url) => {
    try {
      return new Response(fs.readFileSync(filePath(url)));
    } catch (e) {
      return new Response(null, { status: 404, statusText: String(e) });
    }
  },
});

(async () => {
  // Format detection probes `<video>` and `<canvas>`, which node has none of; PNG needs none.
  await pixi.Assets.init({ skipDetections: true });
  const first = pathToFileURL(path.resolve(process.argv[2])).href;
  const sheet = await pixi.Assets.load(first);
  if (!(sheet instanceof pixi.Spritesheet)) throw new Error(`${first} did not load as a Spritesheet`);
  const loaded = [sheet, ...(sheet.linkedSheets || [])];
  const sheets = loaded.map((s) => ({
    image: path.basename(filePath(s.textureSource.label || '')),
    size: [s.textureSource.width, s.textureSource.height],
    frames: Object.keys(s.textures).length,
    // A frame Pixi could not find in this sheet's own textures is `null` here.
    animations: Object.fromEntries(
      Object.entries(s.animations).map(([name, textures]) => [name, textures.map((t) => (t ? t.label : null))]),
    ),
  }));
  // Every frame of every page is in the cache under its name, as `Assets.get` finds it.
  const names = loaded.flatMap((s) => Object.keys(s.textures));
  const cached = names.filter((n) => pixi.Assets.get(n) instanceof pixi.Texture).length;
  // Every animation as the engine guide plays it: each sheet's part, joined in load order.
  const animations = {};
  for (const s of loaded)
    for (const [name, textures] of Object.entries(s.animations)) (animations[name] ??= []).push(...textures);
  const joined = Object.fromEntries(Object.entries(animations).map(([n, ts]) => [n, ts.map((t) => (t ? t.label : null))]));
  // How each plays, from the first page's data as the engine guide reads it.
  const playback = Object.fromEntries(Object.keys(animations).map((n) => [n, sheet.data.meta.playback[n] ?? null]));
  // Each frame as Pixi cut it (its page, rectangle and anchor) with its page data's `flipX`,
  // which a game reads to draw a mirrored direction flipped (`sprite.scale.x = -1`).
  const frames = {};
  loaded.forEach((s, page) => {
    for (const [name, t] of Object.entries(s.textures)) {
      const { x, y, width, height } = t.frame;
      const flipX = s.data.frames[name].flipX === true;
      frames[name] = { page, frame: [x, y, width, height], anchor: [t.defaultAnchor.x, t.defaultAnchor.y], flipX };
    }
  });
  // Whether each animation is flipped, as the engine guide's mirror snippet asks it, of the
  // sheet that holds the animation's first frame.
  const flipped = {};
  for (const s of loaded)
    for (const name of Object.keys(s.animations))
      flipped[name] ??= s.data.frames[s.animations[name][0].label].flipX === true;
  console.log(JSON.stringify({ sheets, joined, cached, playback, frames, flipped }));
})().catch((e) => {
  console.log(JSON.stringify({ error: String(e && e.stack ? e.stack : e) }));
  process.exit(1);
});
