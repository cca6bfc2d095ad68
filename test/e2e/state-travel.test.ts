/**
 * State time travel in the real panel with the built extension: the `misbehave-state` demo run by the
 * official @ag-ui/client, then the scrubber moved with the keyboard and the range input, in Chromium's
 * DevTools window and in Firefox's panel page. Reads the documented hooks (panel/README.md).
 */
import assert from 'node:assert/strict';
import { travelTests, type Scrub, type Scrubbed } from './travel.ts';

/** To the first step with the input, as a user drags it; three steps forward, one back, back to latest. */
const STATE: Scrub = { hook: 'state', rows: 'state-diff', fields: ['kind', 'op', 'path'], moves: [0, ']', ']', ']', '[', 'latest'] };

function check({ latest, after: seen }: Scrubbed): void {
  assert.equal(latest.step, '3', 'opens on the latest step');
  const steps = seen.slice(0, 4);
  assert.deepEqual(steps.map((s) => s.step), ['0', '1', '2', '3']);
  assert.deepEqual(steps[0]!.rows, ['change remove /preferences', 'change add /cart', 'change add /status'], "the snapshot against the input's state (the demo page sends preferences)");
  assert.deepEqual(steps[1]!.rows, ['op add /cart/items/-', 'op replace /cart/total', 'change add /cart/items/1', 'change replace /cart/total']);
  assert.deepEqual(steps[2]!.rows, ['op replace /status', 'op remove /cart/coupon failed'], 'the failed operation marked, no change');
  assert.deepEqual(steps[3]!.rows, ['op move /cart/items/1', 'op add /paid', 'change replace /cart/items/0', 'change replace /cart/items/1', 'change add /paid']);
  assert.equal(seen[4]!.step, '2', 'back one step');
  assert.equal(seen[5]!.step, '3', 'back to latest');
}

travelTests('state time travel in the panel', 'misbehave-state', STATE, check, { chromium: 'scrubbing, diffs against the step before, the failed delta', firefox: 'the same steps and diffs' });
