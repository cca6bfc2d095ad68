import { writeFileSync, mkdirSync } from 'node:fs';
import { encodeSse } from '../../test/analyzer/support/harness.ts';
import { realisticStream } from '../stream.ts';
const { input, events } = realisticStream(100_000, 5);
mkdirSync('/tmp/tb', { recursive: true });
writeFileSync('/tmp/tb/input.json', JSON.stringify(input));
writeFileSync('/tmp/tb/body.sse', encodeSse(events));
