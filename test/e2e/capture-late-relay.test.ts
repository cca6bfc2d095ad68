/**
 * The page script hands its port to the relay once, in a window message, at document_start. Firefox
 * runs a document's content scripts in manifest order, but one still compiling is waited for while
 * other tasks run: a relay that compiled after the page script (on a busy machine, now and then)
 * missed that message, and the tab's capture stayed empty though the page made AG-UI requests. Here
 * the relay compiles late every time: the built extension, its relay followed by megabytes of
 * literals that are parsed and compiled before any of the relay runs.
 */
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { alteredExtension, inAlteredBrowser, type Target } from './browsers.ts';
import { chatOnDemoPage, settled } from './demo-capture.ts';

/** About 100 times the relay's own size; 1 MB already made it miss the handshake. */
const PADDING_BYTES = 4 * 1024 * 1024;

/** A copy of the built extension whose relay script takes long to compile. */
function withLateRelay(target: Target): Promise<string> {
  return alteredExtension(target, 'late-relay', (dir, manifest) => {
    const relay = manifest.content_scripts.find((c) => c.world !== 'MAIN')!.js.at(-1)!;
    const line = `void [${Array.from({ length: 500 }, (_, i) => `{ n: ${i}, s: "${i.toString(36)}", a: [${i}, ${i + 1}] }`).join(', ')}];\n`;
    appendFileSync(join(dir, relay), line.repeat(Math.ceil(PADDING_BYTES / line.length)));
  });
}

describe('a relay that compiles after the page script still gets the page\'s capture', () => {
  let agent: DemoAgent;

  before(async () => {
    agent = await startDemoAgent({ port: 0, delayMs: 0 });
  });
  after(async () => {
    await agent?.close();
  });

  for (const [target, name] of [['firefox', 'Firefox'], ['chrome', 'Chromium']] as const) {
    test(`in ${name}`, async () => {
      await inAlteredBrowser(target, await withLateRelay(target), async (b) => {
        const { tabId, seen } = await chatOnDemoPage(b, agent.url);
        await settled(b, tabId, 1);
        const s = (await b.request({ type: 'agui-inspector/session', tabId }))!;
        assert.deepEqual(s.exchanges.map((x) => [x.api, x.outcome, x.events.length]), [['fetch', 'complete', seen.events.length]]);
        // A late relay is where a handshake gets lost; this one heard it, and must not say otherwise.
        assert.deepEqual(s.stats.unreached, []);
      });
    });
  }
});
