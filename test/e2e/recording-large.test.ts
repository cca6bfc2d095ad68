/**
 * A 100 MB recording imported into the panel (Chromium, built extension): the panel keeps painting
 * while the file is read, parsed and analysed (the progress bar is seen at many values, frame after
 * frame), the progress only moves forward, and the imported session renders. How smoothly it paints is
 * a number `npm run bench` reports, not an assertion here.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildExtension, launchChromium, type ChromiumBrowser } from './browsers.ts';
import { EVENTS_PER_EXCHANGE, importWatched, LARGE_BYTES, writeLargeRecording } from './large-recording.ts';
import { openPanel } from './recording-panel.ts';

describe('importing a 100 MB recording (Chromium)', () => {
  let b: ChromiumBrowser;
  const dir = mkdtempSync(join(tmpdir(), 'agui-large-'));
  const file = join(dir, 'large.har');
  let size = 0;
  let count = 0;

  before(async () => {
    ({ size, count } = await writeLargeRecording(file));
    b = await launchChromium({ extDir: await buildExtension('chrome') });
  });

  after(async () => {
    await b?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('keeps painting, shows progress, renders the session', async (t) => {
    assert.ok(size >= LARGE_BYTES, `the file is ${size} bytes`);
    const panel = await openPanel(b);
    const m = await importWatched(panel, file);
    t.diagnostic(`${(size / 1024 / 1024).toFixed(1)} MB, ${count} exchanges imported in ${m.ms} ms; worst gap between frames ${m.worstFrameGap.toFixed(1)} ms over ${m.frames} frames; progress ${m.values.join(' → ')}`);
    assert.deepEqual(m.phases, ['reading', 'parsing', 'analysing']);
    assert.ok(new Set(m.values).size >= 3, `progress went through ${m.values.join(', ')}`);
    assert.deepEqual(m.values, [...m.values].sort((a, c) => a - c), 'progress only increases');
    // A panel that blocked until the end would paint the bar once or twice; this one yields between slices.
    assert.ok(m.painted >= 3, `the bar was painted at ${m.painted} progress values`);

    const shown = await panel.evaluate(async () => {
      const rows = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
      rows.at(-1)!.click();
      document.querySelector<HTMLElement>('[data-testid=tab-timeline]')!.click();
      await e2e.settle();
      return {
        rows: rows.length,
        verdicts: [...new Set(rows.map((r) => r.dataset.verdict))].sort(),
        events: document.querySelector('[data-testid=timeline-count]')?.textContent,
        first: document.querySelector<HTMLElement>('[data-testid=timeline-row]')?.dataset.type,
      };
    });
    assert.equal(shown.rows, count);
    assert.deepEqual(shown.verdicts, ['completed', 'failed'], 'the demo session has failing exchanges, the large ones complete');
    assert.equal(shown.events, `${EVENTS_PER_EXCHANGE + 4} events`);
    assert.equal(shown.first, 'RUN_STARTED');
  });
});
