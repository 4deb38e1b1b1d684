// Phaser 3's own code on spritebake's engine data, from node, with recording textures (as
// ../shared/tools/engines/phaser_ase.cjs does), printing one JSON line of what Phaser built:
//
//   node phaser_data.cjs aseprite SHEET.json              load.aseprite + anims.createFromAseprite
//   node phaser_data.cjs anims ATLAS.json ANIMS.json      load.atlas (JSONHash) + anims.fromJSON
//   node phaser_data.cjs multiatlas ATLAS.json ANIMS.json load.multiatlas + anims.fromJSON
//
// `multiatlas` runs the loader's MultiAtlasFile on the JSON (it queues each texture's image and
// normal map, which are "loaded" here as their PNG sizes read from the files beside the JSON)
// and its addToCache, which hands every page to TextureManager.addAtlasJSONArray and so to
// the JSONArray parser, all under the one key the file's name gives (`load.multiatlas('ogro',
// 'ogro.json')`). Run with the engines folder (where phaser is installed) as the working folder.
globalThis.window = globalThis; // some modules peek
const path = require('path');
const fs = require('fs');
const phaser = require('module').createRequire(path.join(process.cwd(), 'package.json'));
const JSONArray = phaser('phaser/src/textures/parsers/JSONArray.js');
const JSONHash = phaser('phaser/src/textures/parsers/JSONHash.js');
const AnimationManager = phaser('phaser/src/animations/AnimationManager.js');

const [mode, sheetPath, animsPath] = process.argv.slice(2);
const sheet = JSON.parse(fs.readFileSync(sheetPath, 'utf8'));

// Frame rectangles the parsers made that differ from the JSON's, and other mismatches.
let problems = 0;

/** A texture of `sources` that records the frames a parser adds, refusing a name twice as
 * Phaser's Texture.add does. */
function recordingTexture(key, sources) {
  const frames = {};
  const texture = { key, source: sources, customData: {}, frames,
    add(name, sourceIndex, x, y, w, h) {
      if (frames[name]) return null;
      const f = { name, sourceIndex, x, y, w, h,
        setTrim() { this.trimmed = true; return this; }, updateUVsInverted() {} };
      frames[name] = f; return f;
    },
    setDataSource(normals) { this.normals = normals; } };
  return texture;
}

/** The atlas as `load.atlas` / `load.aseprite` parse it: one texture, the image's name its key. */
function atlas() {
  const key = path.basename(sheet.meta.image, path.extname(sheet.meta.image));
  const texture = recordingTexture(key, [{ width: sheet.meta.size.w, height: sheet.meta.size.h }]);
  (Array.isArray(sheet.frames) ? JSONArray : JSONHash)(texture, 0, sheet);
  return texture;
}

/** A PNG's size from its header, as the image Phaser's loader would hand over. */
function pngSize(file) {
  const png = fs.readFileSync(file);
  if (png.toString('latin1', 1, 4) !== 'PNG') throw new Error(`${file} is not a PNG`);
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), file: path.basename(file) };
}

/** The multi-atlas as `load.multiatlas(KEY, 'KEY.json')` loads it. */
function multiAtlas() {
  // Device detection runs when the texture manager is required: skip its canvas probes as in a
  // worker, and give it the little of a browser it reads.
  globalThis.importScripts = () => {};
  globalThis.navigator = { userAgent: 'node' };
  globalThis.document = { documentElement: { style: {} }, createElement: () => ({ style: {}, getContext: () => null }),
    addEventListener() {} };
  const MultiAtlasFile = phaser('phaser/src/loader/filetypes/MultiAtlasFile.js');
  const TextureManager = phaser('phaser/src/textures/TextureManager.js');
  const key = path.basename(sheetPath, '.json');
  let texture = null;
  const textureManager = Object.assign(Object.create(TextureManager.prototype), {
    checkKey: () => true, emit() {},
    create: (k, images) => (texture = recordingTexture(k, images.map((i) => ({ ...i })))),
  });
  const queued = [];
  const loader = { prefix: '', path: '', baseURL: '', multiKeyIndex: 0, maxRetries: 2, textureManager,
    cacheManager: { json: null }, imageLoadType: 'XHR',
    setBaseURL(v) { this.baseURL = v || ''; }, setPath(v) { this.path = v || ''; },
    setPrefix(v) { this.prefix = v || ''; }, addFile(file) { queued.push(file); } };
  const multi = new MultiAtlasFile(loader, key, path.basename(sheetPath));
  // The loader finishes the JSON, which queues the pages; then each page's files.
  multi.files[0].data = sheet;
  multi.onFileComplete(multi.files[0]);
  for (const file of multi.files.slice(1)) {
    file.data = pngSize(path.join(path.dirname(sheetPath), file.url));
    multi.onFileComplete(file);
  }
  if (!multi.isReadyToProcess()) throw new Error('the multi-atlas is still waiting for files');
  multi.addToCache();
  if (!texture) throw new Error('addAtlasJSONArray made no texture');
  // Every page is a source of the one texture, in the JSON's order, at the JSON's size.
  sheet.textures.forEach((t, i) => {
    const source = texture.source[i];
    if (!source || source.file !== t.image || source.width !== t.size.w || source.height !== t.size.h) {
      problems++; console.log('source mismatch', i, t.image);
    }
    for (const f of t.frames) {
      const made = texture.frames[f.filename];
      const r = f.frame;
      if (!made || made.sourceIndex !== i || made.x !== r.x || made.y !== r.y || made.w !== r.w || made.h !== r.h) {
        problems++; console.log('frame mismatch', f.filename);
      }
    }
  });
  return { texture, queued: queued.length };
}

let texture;
let extra = {};
if (mode === 'multiatlas') {
  const loaded = multiAtlas();
  texture = loaded.texture;
  extra = { sources: texture.source.length, queued: loaded.queued, normalMaps: (texture.normals || []).length };
} else {
  texture = atlas();
}
const frames = texture.frames;
delete frames['__BASE'];
let missing = 0;
const textureManager = {
  exists: (key) => key === texture.key,
  getFrame: (key, name) => { const f = key === texture.key ? frames[name] : undefined; if (!f) missing++; return f; },
  get: () => ({ getFrameNames: () => Object.keys(frames) }),
};
// The manager's own methods on a stand-in with that texture manager and the cached JSON.
const manager = Object.assign(Object.create(AnimationManager.prototype), {
  textureManager, anims: new Map(), game: { cache: { json: { get: () => sheet } } }, emit() {}, on: null,
});

let created;
if (mode === 'aseprite') {
  created = manager.createFromAseprite(texture.key);
} else if (mode === 'anims' || mode === 'multiatlas') {
  created = manager.fromJSON(fs.readFileSync(animsPath, 'utf8'));
} else {
  throw new Error('mode: aseprite, anims or multiatlas');
}
console.log(JSON.stringify({
  textureKey: texture.key,
  textureFrames: Object.keys(frames).length,
  trimmed: Object.values(frames).filter((f) => f.trimmed).length,
  missing,
  problems,
  ...extra,
  anims: created.map((a) => ({
    key: a.key, frames: a.frames.length, frameRate: a.frameRate, repeat: a.repeat, duration: a.duration,
    frameNames: a.frames.map((f) => f.textureFrame), frameDurations: a.frames.map((f) => f.duration),
    // How many frames the atlas parser kept a mirrored direction's `flipX` for (in
    // `customData`, which a game passes to `setFlipX`), and how many have their own pivot
    // (Phaser flips such a frame about it).
    flipX: a.frames.filter((f) => f.frame && f.frame.customData && f.frame.customData.flipX === true).length,
    customPivot: a.frames.filter((f) => f.frame && f.frame.customPivot).length,
  })),
}));
// Not `process.exit`, which can cut a long line short on a pipe.
process.exitCode = problems ? 1 : 0;
