/**
 * Writes examples/session.har: every demo scenario over SSE and protobuf, recorded from the demo agent and
 * exported as the Inspector exports a session. `npm run example` regenerates it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordFromOwnAgent } from '../demo/record.ts';
import { exportSession } from '../src/recording/export.ts';

const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'session.har');
const { session } = await recordFromOwnAgent(5);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, exportSession(session));
console.log(`wrote ${out}: ${session.length} exchanges`);
