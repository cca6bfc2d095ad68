/**
 * Conversation time travel in the real panel with the built extension: the `misbehave-conversation` demo
 * run by the official @ag-ui/client, whose MESSAGES_SNAPSHOT drops one message, lists two others out of
 * the consumer's order and rewrites one; the conversation scrubber moved with the keyboard and the range
 * input, in Chromium's DevTools window and in Firefox's panel page. Reads the documented hooks (panel/README.md).
 */
import assert from 'node:assert/strict';
import { travelTests, type Scrub, type Scrubbed } from './travel.ts';

/** Opens on the snapshot (the last step); one back, one forward, to the first step, back to latest. */
const CONV: Scrub = { hook: 'conv', rows: 'conv-diff', fields: ['change', 'id', 'kind'], moves: ['[', ']', 0, 'latest'] };

/** The page's client picks the run id: rows are read without it. */
const local = (rows: string[]): string[] => rows.map((r) => r.replace(/ [^ ]*:/, ' '));

function check({ latest, after: [back, forward, first, again] }: Scrubbed): void {
  const snapshotRows = ['replaced draft message', 'dropped aside message', 'reordered source message', 'reordered note message'];
  assert.deepEqual(local(latest.rows), snapshotRows, 'the snapshot step: dropped, reordered and replaced, each with its id');
  const last = Number(latest.step);
  assert.deepEqual([back!.step, local(back!.rows)], [String(last - 1), ['replaced note message']], 'the step before: the last message growing');
  assert.deepEqual([forward!.step, local(forward!.rows)], [String(last), snapshotRows]);
  assert.deepEqual([first!.step, local(first!.rows)], ['0', ['added progress activity']], 'the activity, shown as such');
  assert.equal(again!.step, String(last));
}

travelTests('conversation time travel in the panel', 'misbehave-conversation', CONV, check, { chromium: 'the snapshot step says what it dropped, reordered and replaced', firefox: 'the same steps and rows' });
