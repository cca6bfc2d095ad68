/**
 * The extension's icons, drawn at build time (vite.config.ts emits them), so no image is kept in the repository
 * and no image library is needed. The drawing is a few shapes painted as SVG paints its rect (with rx), circle
 * (stroked) and line (round caps), on a 128-unit canvas — lines of a stream under a magnifier — which `png()`
 * rasterises (4×4 samples a pixel) into a PNG written with node:zlib.
 */
import { deflateSync } from 'node:zlib';

type Shape =
  | { kind: 'rect'; x: number; y: number; width: number; height: number; rx: number }
  | { kind: 'ring'; cx: number; cy: number; r: number; stroke: number }
  | { kind: 'line'; x1: number; y1: number; x2: number; y2: number; stroke: number };

const CANVAS = 128;
const GLYPH: Shape[] = [
  { kind: 'line', x1: 24, y1: 38, x2: 74, y2: 38, stroke: 13 },
  { kind: 'line', x1: 24, y1: 64, x2: 44, y2: 64, stroke: 13 },
  { kind: 'line', x1: 24, y1: 90, x2: 40, y2: 90, stroke: 13 },
  { kind: 'ring', cx: 76, cy: 72, r: 22, stroke: 12 },
  { kind: 'line', x1: 93, y1: 89, x2: 106, y2: 102, stroke: 15 },
];
const TILE: Shape = { kind: 'rect', x: 4, y: 4, width: 120, height: 120, rx: 26 };

/**
 * `tile`: the glyph in white on a blue tile, the extension's icon, legible on any background (Chrome's
 * toolbar, whose theme it cannot follow, and the stores). `dark` and `light`: the bare glyph for light and
 * for dark toolbars, which Firefox picks between (`action.theme_icons`).
 */
const painted = (colour: string): [Shape, string][] => GLYPH.map((s) => [s, colour]);
const VARIANTS = {
  tile: [[TILE, '#2f54eb'], ...painted('#ffffff')],
  dark: painted('#1f2328'),
  light: painted('#f0f2f5'),
} satisfies Record<string, [Shape, string][]>;
type Variant = keyof typeof VARIANTS;

/** Whether canvas point (x, y) is inside the shape, as SVG paints it. */
function inside(s: Shape, x: number, y: number): boolean {
  if (s.kind === 'ring') return Math.abs(Math.hypot(x - s.cx, y - s.cy) - s.r) <= s.stroke / 2;
  if (s.kind === 'line') {
    // Distance to the segment: round caps are the points within half the stroke of either end.
    const dx = s.x2 - s.x1;
    const dy = s.y2 - s.y1;
    const t = Math.max(0, Math.min(1, ((x - s.x1) * dx + (y - s.y1) * dy) / (dx * dx + dy * dy)));
    return Math.hypot(x - (s.x1 + t * dx), y - (s.y1 + t * dy)) <= s.stroke / 2;
  }
  const qx = Math.max(s.x + s.rx - x, 0, x - (s.x + s.width - s.rx));
  const qy = Math.max(s.y + s.rx - y, 0, y - (s.y + s.height - s.rx));
  return x >= s.x && x <= s.x + s.width && y >= s.y && y <= s.y + s.height && Math.hypot(qx, qy) <= s.rx;
}

const SAMPLES = 4;

/** RGBA, row by row, non-premultiplied: each layer painted over the ones before with its coverage. */
function pixels(variant: Variant, size: number): Uint8Array {
  const layers = VARIANTS[variant].map(([s, colour]) => [s, [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16))] as const);
  const out = new Uint8Array(size * size * 4);
  const scale = CANVAS / size;
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let [r, g, b, a] = [0, 0, 0, 0];
      for (const [shape, [sr, sg, sb]] of layers) {
        let hits = 0;
        for (let j = 0; j < SAMPLES; j++) {
          for (let i = 0; i < SAMPLES; i++) if (inside(shape, (px + (i + 0.5) / SAMPLES) * scale, (py + (j + 0.5) / SAMPLES) * scale)) hits++;
        }
        const c = hits / (SAMPLES * SAMPLES);
        if (c === 0) continue;
        const outA = c + a * (1 - c);
        r = (sr! * c + r * a * (1 - c)) / outA;
        g = (sg! * c + g * a * (1 - c)) / outA;
        b = (sb! * c + b * a * (1 - c)) / outA;
        a = outA;
      }
      out.set([Math.round(r), Math.round(g), Math.round(b), Math.round(a * 255)], (py * size + px) * 4);
    }
  }
  return out;
}

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A PNG of the variant at size × size: 8-bit RGBA, each row unfiltered. */
function png(variant: Variant, size: number): Buffer {
  const rgba = pixels(variant, size);
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) raw.set(rgba.subarray(y * size * 4, (y + 1) * size * 4), y * (size * 4 + 1) + 1);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', new Uint8Array())]);
}

/** Every icon file a manifest names, by path in the extension; `themed` adds the toolbar glyphs (Firefox's). */
export function iconFiles(o: { themed: boolean }): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const size of [16, 32, 48, 128]) files.set(`icons/icon-${size}.png`, png('tile', size));
  if (o.themed) for (const theme of ['dark', 'light'] as const) for (const size of [16, 32]) files.set(`icons/toolbar-${theme}-${size}.png`, png(theme, size));
  return files;
}
