import { readFileSync } from 'node:fs';
import { encodeSse } from '../../test/analyzer/support/harness.ts';
import { realisticStream } from '../stream.ts';
const { events } = realisticStream(100_000, 5);
const a = new TextEncoder().encode(encodeSse(events) as any);
const b = new Uint8Array(readFileSync('/tmp/tb/body.sse'));
console.log(typeof encodeSse(events), a.length, b.length, Buffer.compare(Buffer.from(a), Buffer.from(b)));
