/**
 * State time travel: an exchange whose input carries a 1 MB state, then one-path STATE_DELTAs; the
 * scrubber moved one step at a time, backwards from the latest (the order that replays most) then
 * forwards, each move being one `stateDiff` as the worker answers it. p95 per move against the target
 * of 50 ms, at 1,000 and 2,000 steps side by side: a move must cost the same whatever the step count.
 *
 * Conversation time travel likewise: a conversation of 2,000 (then 4,000) messages, half the input's
 * history and half streamed, then a MESSAGES_SNAPSHOT restating it with one message edited; every
 * conversation step asked for (`conversationDiff`) backwards then forwards. A step answers what it
 * changed, so doubling the conversation should leave a move's cost as it is.
 *
 * `npx tsx bench/change.ts` prints it; bench/run.ts calls `changeBench()` (`npm run bench -- change`).
 */
import { fileURLToPath } from 'node:url';
import { ExchangeReading } from '../src/detail/index.ts';
import { formatSection, percentile, type Section } from './report.ts';

const TARGET_MS = 50;

function exchangeOf(steps: number): ExchangeReading {
  const state = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`key${i}`, { text: 'x'.repeat(480), n: i }]));
  const r = new ExchangeReading({
    source: 'bench', contentType: 'text/event-stream', status: 200,
    requestBody: JSON.stringify({ threadId: 't', runId: 'r', protocolVersion: '1.0', messages: [], tools: [], context: [], state, forwardedProps: {} }),
  });
  const events = [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
    ...Array.from({ length: steps }, (_, i) => ({ type: 'STATE_DELTA', delta: [{ op: 'replace', path: `/key${i % 2000}/n`, value: -i - 1 }] })),
    { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
  ];
  events.forEach((e, i) => r.push(new TextEncoder().encode(`data: ${JSON.stringify(e)}\n\n`), i));
  r.end(events.length);
  return r;
}

function scrub(steps: number): { p95: number; median: number } {
  const r = exchangeOf(steps);
  const times: number[] = [];
  const move = (n: number): void => {
    const t0 = performance.now();
    if (r.stateDiff(n)?.changes.length !== 1) throw new Error(`step ${n} must change one path`);
    times.push(performance.now() - t0);
  };
  for (let n = steps - 1; n >= 0; n--) move(n);
  for (let n = 0; n < steps; n++) move(n);
  return { p95: percentile(times, 95), median: percentile(times, 50) };
}

function conversationOf(messages: number): ExchangeReading {
  const text = (i: number): string => `message ${i} `.repeat(20);
  const history = Array.from({ length: messages / 2 }, (_, i) => ({ id: `h${i}`, role: i % 2 ? 'assistant' : 'user', content: text(i) }));
  const r = new ExchangeReading({
    source: 'bench', contentType: 'text/event-stream', status: 200,
    requestBody: JSON.stringify({ threadId: 't', runId: 'r', protocolVersion: '1.0', messages: history, tools: [], context: [], state: {}, forwardedProps: {} }),
  });
  const streamed = Array.from({ length: messages / 2 }, (_, i) => [
    { type: 'TEXT_MESSAGE_START', messageId: `s${i}`, role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: `s${i}`, delta: text(i) },
    { type: 'TEXT_MESSAGE_END', messageId: `s${i}` },
  ]).flat();
  const all = [...history, ...Array.from({ length: messages / 2 }, (_, i) => ({ id: `s${i}`, role: 'assistant', content: text(i) }))];
  all[messages / 4] = { ...all[messages / 4]!, content: 'edited' };
  const events = [{ type: 'RUN_STARTED', threadId: 't', runId: 'r' }, ...streamed, { type: 'MESSAGES_SNAPSHOT', messages: all }, { type: 'RUN_FINISHED', threadId: 't', runId: 'r' }];
  events.forEach((e, i) => r.push(new TextEncoder().encode(`data: ${JSON.stringify(e)}\n\n`), i));
  r.end(events.length);
  return r;
}

function scrubConversation(messages: number): { steps: number; p95: number; median: number; whole: number } {
  const r = conversationOf(messages);
  const steps = r.part('conversationSteps').length;
  const times: number[] = [];
  const move = (n: number): void => {
    const t0 = performance.now();
    if (r.conversationDiff(n)?.changes.length !== 1) throw new Error(`conversation step ${n} must change one message`);
    times.push(performance.now() - t0);
  };
  for (let n = steps - 1; n >= 0; n--) move(n);
  for (let n = 0; n < steps; n++) move(n);
  // The whole conversation at the last step, as the view asks for it on demand: what a step would cost if it were replayed.
  const whole: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    r.conversationAt(steps - 1);
    whole.push(performance.now() - t0);
  }
  return { steps, p95: percentile(times, 95), median: percentile(times, 50), whole: percentile(whole, 50) };
}

export async function changeBench(): Promise<Section[]> {
  const rows = [1000, 2000].map((steps) => ({ steps, ...scrub(steps) }));
  const worst = Math.max(...rows.map((r) => r.p95));
  return [{
    title: 'State time travel: one scrubber move (stateDiff) on a 1 MB state with one-path deltas',
    columns: ['state steps', 'median ms', 'p95 ms'],
    rows: rows.map((r) => [r.steps, r.median.toFixed(2), r.p95.toFixed(2)]),
    notes: [`p95 ${worst.toFixed(2)} ms (target < ${TARGET_MS} ms: ${worst < TARGET_MS ? 'met' : 'MISSED'}); every step visited backwards from the latest, then forwards; doubling the steps should leave a move's cost as it is`],
  }, conversationSection()];
}

function conversationSection(): Section {
  const rows = [2000, 4000].map((messages) => ({ messages, ...scrubConversation(messages) }));
  const worst = Math.max(...rows.map((r) => r.p95));
  return {
    title: 'Conversation time travel: one step (conversationDiff) on a conversation of 2,000 and 4,000 messages',
    columns: ['messages', 'conversation steps', 'median ms', 'p95 ms', 'whole conversation on demand, ms'],
    rows: rows.map((r) => [r.messages, r.steps, r.median.toFixed(3), r.p95.toFixed(3), r.whole.toFixed(1)]),
    notes: [`p95 ${worst.toFixed(3)} ms (target < ${TARGET_MS} ms: ${worst < TARGET_MS ? 'met' : 'MISSED'}); every step visited backwards, then forwards, the last a snapshot restating every message with one edited; doubling the conversation should leave a step's cost as it is`],
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) for (const s of await changeBench()) console.log(formatSection(s));
