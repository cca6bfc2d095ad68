/**
 * The least any SSE checker does, as a whole process, for bench/process.ts: read the body, decode
 * UTF-8, split it into frames and JSON.parse each. No validation, no verification.
 *
 *   node bench/floor-process.mjs <body.sse>
 */
import { readFileSync } from 'node:fs';

const text = new TextDecoder().decode(readFileSync(process.argv[2]));
let events = 0;
for (const frame of text.split('\n\n')) {
  if (frame.startsWith('data: ')) {
    JSON.parse(frame.slice(6));
    events++;
  }
}
console.log(`parsed ${events}`);
