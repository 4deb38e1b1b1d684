// Reads a libGDX atlas with Spine's runtime core, the JavaScript port of libGDX's
// TextureAtlas reader, and prints what it saw as one line of JSON: each page's image and size,
// and each region as the reader filled it in.
import { readFileSync } from "node:fs";
import { TextureAtlas } from "@esotericsoftware/spine-core";

const atlas = new TextureAtlas(readFileSync(process.argv[2], "utf8"));
const values = (region) => Object.fromEntries((region.names ?? []).map((n, i) => [n, region.values[i]]));
console.log(JSON.stringify({
  pages: atlas.pages.map((p) => ({ name: p.name, width: p.width, height: p.height })),
  regions: atlas.regions.map((r) => ({
    name: r.name, page: r.page.name, x: r.x, y: r.y, width: r.width, height: r.height,
    offsetX: r.offsetX, offsetY: r.offsetY, originalWidth: r.originalWidth,
    originalHeight: r.originalHeight, index: r.index, degrees: r.degrees, values: values(r),
  })),
}));
