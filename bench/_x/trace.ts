import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildExtension, launchChromium } from '../../test/e2e/browsers.ts';
import { importWatched, writeLargeRecording } from '../../test/e2e/large-recording.ts';
import { openPanel } from '../../test/e2e/recording-panel.ts';
const dir = mkdtempSync(join(tmpdir(), 'x-'));
const file = join(dir, 'large.har');
await writeLargeRecording(file);
const b = await launchChromium({ extDir: await buildExtension('chrome') });
for (let i = 0; i < Number(process.env.RUNS ?? 2); i++) {
  const panel = await openPanel(b);
  const cdp = await panel.context().newCDPSession(panel);
  const events: any[] = [];
  cdp.on('Tracing.dataCollected', (d: any) => events.push(...d.value));
  const done = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline.invalidationTracking,disabled-by-default-devtools.timeline,v8.execute,blink.user_timing', transferMode: 'ReportEvents' });
  const shot = new Promise((r) => setTimeout(() => panel.screenshot({ path: `bench/_x/shot${i}.png` }).then(r, r), 2000));
  const w = await importWatched(panel, file);
  await shot;
  await cdp.send('Tracing.end');
  await done;
  console.log('run', i, 'ms', w.ms, 'worst', w.worstFrameGap.toFixed(0), 'frames', w.frames);
  writeFileSync(join('bench/_x', `trace${i}.json`), JSON.stringify(events));
  await panel.close();
}
await b.close();
