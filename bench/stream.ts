import type { Event } from '../test/analyzer/support/grammar.ts';
import { Rng } from '../test/analyzer/support/prng.ts';

export interface BenchStream {
  input: Record<string, unknown>;
  events: Event[];
}

const WORDS = 'the of and to in is that for it as with was on be by this are from at or an which have not they you were'.split(' ');

function prose(rng: Rng, min: number, max: number): string {
  const n = rng.int(min, max);
  let s = '';
  while (s.length < n) s += rng.pick(WORDS) + (rng.chance(0.1) ? '. ' : ' ');
  return s.slice(0, n);
}

/** A tool call's arguments, cut into the fragments a model streams them in. */
function argFragments(rng: Rng): string[] {
  const args = JSON.stringify({ query: prose(rng, 10, 60), limit: rng.int(1, 50), filters: { lang: 'en', since: '2026-01-01' } });
  const parts: string[] = [];
  for (let at = 0; at < args.length; ) {
    const n = rng.int(4, 24);
    parts.push(args.slice(at, at + n));
    at += n;
  }
  return parts;
}

const STATE_KEYS = Array.from({ length: 16 }, (_, i) => `field${i}`);

/**
 * A long exchange with the mix a chat agent produces: mostly streamed text (deltas of 5–200
 * characters), tool calls with JSON arguments and results, state deltas over a fixed set of keys
 * with an occasional snapshot, some reasoning and steps, spread over `runs` runs. Everything opened
 * is closed, so what an analyzer must keep is bounded by one run's open items, not by the length.
 */
export function realisticStream(total: number, runs: number, seed = 7): BenchStream {
  const rng = new Rng(seed);
  const threadId = 'thread-bench';
  const input = { threadId, runId: `run-${runs - 1}`, protocolVersion: '1.0', messages: [{ id: 'u0', role: 'user', content: 'go' }], state: {} };
  const events: Event[] = [];
  let id = 0;
  for (let r = 0; r < runs; r++) {
    const runId = `run-${r}`;
    const budget = Math.floor(((r + 1) * total) / runs) - 1;
    events.push({ type: 'RUN_STARTED', threadId, runId, protocolVersion: '1.0' });
    while (events.length < budget) {
      const roll = rng.next();
      if (roll < 0.62) {
        const messageId = `msg-${++id}`;
        events.push({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' });
        for (let k = rng.int(1, 30); k > 0; k--) events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: prose(rng, 5, 200) });
        events.push({ type: 'TEXT_MESSAGE_END', messageId });
      } else if (roll < 0.77) {
        const toolCallId = `call-${++id}`;
        events.push({ type: 'TOOL_CALL_START', toolCallId, toolCallName: 'search', parentMessageId: `msg-${id - 1}` });
        for (const delta of argFragments(rng)) events.push({ type: 'TOOL_CALL_ARGS', toolCallId, delta });
        events.push({ type: 'TOOL_CALL_END', toolCallId });
        events.push({ type: 'TOOL_CALL_RESULT', messageId: `res-${id}`, toolCallId, role: 'tool', content: prose(rng, 20, 400) });
      } else if (roll < 0.92) {
        const ops = Array.from({ length: rng.int(1, 3) }, () => ({ op: 'replace', path: `/${rng.pick(STATE_KEYS)}`, value: rng.chance(0.5) ? rng.int(0, 1e6) : prose(rng, 5, 40) }));
        events.push({ type: 'STATE_DELTA', delta: ops });
      } else if (roll < 0.93) {
        events.push({ type: 'STATE_SNAPSHOT', snapshot: Object.fromEntries(STATE_KEYS.map((k) => [k, prose(rng, 5, 40)])) });
      } else if (roll < 0.97) {
        const messageId = `rsn-${++id}`;
        events.push({ type: 'REASONING_START', messageId });
        events.push({ type: 'REASONING_MESSAGE_START', messageId, role: 'reasoning' });
        for (let k = rng.int(1, 10); k > 0; k--) events.push({ type: 'REASONING_MESSAGE_CONTENT', messageId, delta: prose(rng, 5, 200) });
        events.push({ type: 'REASONING_MESSAGE_END', messageId });
        events.push({ type: 'REASONING_END', messageId });
      } else {
        const stepName = `step-${++id}`;
        events.push({ type: 'STEP_STARTED', stepName });
        events.push({ type: 'STEP_FINISHED', stepName });
      }
    }
    events.push({ type: 'RUN_FINISHED', threadId, runId });
  }
  return { input, events };
}
