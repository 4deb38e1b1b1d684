// Phaser 3's own code on spritebake's engine data, from node, with recording textures (as
// ../shared/tools/engines/phaser_ase.cjs does), printing one JSON line of what Phaser built:
//
//   node phaser_data.cjs aseprite SHEET.json          load.aseprite + anims.createFromAseprite
//   node phaser_data.cjs anims ATLAS.json ANIMS.json  load.atlas (JSONHash) + anims.fromJSON
//
// Run with the engines folder (where phaser is installed) as the working folder.
globalThis.window = globalThis; // some modules peek
const path = require('path');
const fs = require('fs');
const phaser = require('module').createRequire(path.join(process.cwd(), 'package.json'));
const JSONArray = phaser('phaser/src/textures/parsers/JSONArray.js');
const JSONHash = phaser('phaser/src/textures/parsers/JSONHash.js');
const AnimationManager = phaser('phaser/src/animations/AnimationManager.js');

const [mode, sheetPath, animsPath] = process.argv.slice(2);
const sheet = JSON.parse(fs.readFileSync(sheetPath, 'utf8'));
// The texture key the atlas is loaded under: the image's name without extension.
const textureKey = path.basename(sheet.meta.image, path.extname(sheet.meta.image));

// A texture that records the frames the parser adds (TextureManager.addAtlas's parser choice).
const frames = {};
const texture = { source: [{ width: sheet.meta.size.w, height: sheet.meta.size.h }], customData: {},
  add(name, si, x, y, w, h) {
    const f = { name, x, y, w, h, setTrim() { this.trimmed = true; return this; }, updateUVsInverted() {} };
    frames[name] = f; return f;
  } };
(Array.isArray(sheet.frames) ? JSONArray : JSONHash)(texture, 0, sheet);
delete frames['__BASE'];
let missing = 0;
const textureManager = {
  exists: (key) => key === textureKey,
  getFrame: (key, name) => { const f = key === textureKey ? frames[name] : undefined; if (!f) missing++; return f; },
  get: () => ({ getFrameNames: () => Object.keys(frames) }),
};
// The manager's own methods on a stand-in with that texture manager and the cached JSON.
const manager = Object.assign(Object.create(AnimationManager.prototype), {
  textureManager, anims: new Map(), game: { cache: { json: { get: () => sheet } } }, emit() {}, on: null,
});

let created;
if (mode === 'aseprite') {
  created = manager.createFromAseprite(textureKey);
} else if (mode === 'anims') {
  created = manager.fromJSON(fs.readFileSync(animsPath, 'utf8'));
} else {
  throw new Error('mode: aseprite or anims');
}
console.log(JSON.stringify({
  textureFrames: Object.keys(frames).length,
  missing,
  anims: created.map((a) => ({
    key: a.key, frames: a.frames.length, frameRate: a.frameRate, repeat: a.repeat, duration: a.duration,
    frameNames: a.frames.map((f) => f.textureFrame), frameDurations: a.frames.map((f) => f.duration),
  })),
}));
