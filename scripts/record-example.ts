/**
 * Writes examples/session.har: every demo scenario over SSE and protobuf, recorded from the demo agent and
 * exported as the Inspector exports a session. `npm run example` regenerates it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemoAgent } from '../demo/agent.ts';
import { recordDemoSession } from '../demo/record.ts';
import { exportSession } from '../src/recording/export.ts';

const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'session.har');
const agent = await startDemoAgent({ port: 0, delayMs: 5, page: false });
try {
  const exchanges = await recordDemoSession(agent.url);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, exportSession(exchanges));
  console.log(`wrote ${out}: ${exchanges.length} exchanges`);
} finally {
  await agent.close();
}
