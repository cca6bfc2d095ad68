/**
 * The project's protobuf decoder (src/wire/proto-decode.ts) against `@ag-ui/proto`'s `decode`, the
 * decoder every AG-UI client reads binary streams with: on every frame, the same value — deeply,
 * key order included — or the same error, including a frame that names only a later version's arm.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AGUI_MEDIA_TYPE, AGUIUnknownEventTypeError, decode } from '@ag-ui/proto';
import { decodeEvent, PROTO_MEDIA_TYPE, UnknownEventVariantError } from '../../src/wire/proto-decode.ts';
import { generateScenario } from '../analyzer/support/grammar.ts';
import { encodeProto } from '../analyzer/support/harness.ts';
import { mutate } from '../analyzer/support/mutate.ts';
import { Rng } from '../analyzer/support/prng.ts';
import { events as samples } from '../schema/samples.ts';

/** A decode's whole answer as one comparable string. */
function answer(fn: (b: Uint8Array) => unknown, bytes: Uint8Array): string {
  try {
    return `value ${JSON.stringify(fn(bytes))}`;
  } catch (e) {
    if (e instanceof AGUIUnknownEventTypeError || e instanceof UnknownEventVariantError) return 'unknown variant';
    return `error ${e instanceof Error ? e.message : String(e)}`;
  }
}

function agree(bytes: Uint8Array, what: string): string {
  const theirs = answer(decode, bytes);
  assert.equal(answer(decodeEvent, bytes), theirs, `${what}: bytes ${Buffer.from(bytes).toString('hex')}`);
  return theirs;
}

/** Length-prefixed frames → message bytes. */
function frames(body: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at + 4 <= body.length; ) {
    const n = new DataView(body.buffer, body.byteOffset + at, 4).getUint32(0);
    out.push(body.slice(at + 4, at + 4 + n));
    at += 4 + n;
  }
  return out;
}

function encodeOne(event: unknown): Uint8Array | null {
  try {
    return frames(encodeProto([event]))[0]!;
  } catch {
    return null;
  }
}

// --- a small wire tree: enough to mutate any field at any depth and re-encode lengths --------------

interface Node {
  no: number;
  wt: number;
  /** Varint value bytes, fixed bytes, or a length-delimited payload (parsed as a message when it is one). */
  bytes: Uint8Array;
  children: Node[] | null;
}

function varint(n: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

/** Parses a message strictly (no groups); null when the bytes are not one, so they stay a string or blob. */
function parse(bytes: Uint8Array, depth = 0): Node[] | null {
  const out: Node[] = [];
  let at = 0;
  const read = (): number | null => {
    let v = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = bytes[at++];
      if (b === undefined) return null;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
    return null;
  };
  while (at < bytes.length) {
    const tag = read();
    if (tag === null || tag < 8) return null;
    const no = Math.floor(tag / 8);
    const wt = tag % 8;
    const start = at;
    if (wt === 0) {
      while ((bytes[at] ?? 0) >= 0x80) at++;
      at++;
    } else if (wt === 1) at += 8;
    else if (wt === 5) at += 4;
    else if (wt === 2) {
      const n = read();
      if (n === null) return null;
      const from = at;
      at += n;
      if (at > bytes.length) return null;
      const payload = bytes.subarray(from, at);
      out.push({ no, wt, bytes: payload, children: depth < 8 && payload.length > 0 ? parse(payload, depth + 1) : null });
      continue;
    } else return null;
    if (at > bytes.length) return null;
    out.push({ no, wt, bytes: bytes.subarray(start, at), children: null });
  }
  return out;
}

function serialize(nodes: Node[]): Uint8Array {
  const out: number[] = [];
  for (const n of nodes) {
    out.push(...varint(n.no * 8 + n.wt));
    if (n.wt === 2) {
      const payload = n.children ? serialize(n.children) : n.bytes;
      out.push(...varint(payload.length), ...payload);
    } else out.push(...n.bytes);
  }
  return new Uint8Array(out);
}

/** Every node of a tree, as the path of indices that reaches it. */
function paths(nodes: Node[], prefix: number[] = []): number[][] {
  return nodes.flatMap((n, i) => [[...prefix, i], ...(n.children ? paths(n.children, [...prefix, i]) : [])]);
}

/** A copy of the tree with the list holding the node at `path` replaced by `edit(list, index)`. */
function edit(nodes: Node[], path: number[], change: (list: Node[], i: number) => Node[]): Node[] {
  const [i, ...rest] = path as [number, ...number[]];
  if (rest.length === 0) return change(nodes, i);
  return nodes.map((n, k) => (k === i ? { ...n, children: edit(n.children!, rest, change) } : n));
}

const raw = (no: number, wt: number, bytes: number[]): Node => ({ no, wt, bytes: new Uint8Array(bytes), children: null });

/** A field's payload in another wire type, so each field is tried with every type a reader might meet. */
function retyped(n: Node, wt: number): Node[] {
  switch (wt) {
    case 0: return [raw(n.no, 0, [0x96, 0x01])];
    case 1: return [raw(n.no, 1, [0, 0, 0, 0, 0, 0, 0xf0, 0x3f])];
    case 2: return [{ no: n.no, wt: 2, bytes: n.wt === 2 ? n.bytes : new Uint8Array([0x61]), children: null }];
    case 3: return [raw(n.no, 3, []), raw(n.no, 4, [])];
    case 4: return [raw(n.no, 4, [])];
    case 5: return [raw(n.no, 5, [0, 0, 0x80, 0x3f])];
    default: return [raw(n.no, wt, [])];
  }
}

/** Varint payloads that probe width and range: zero, one, negative int32, 2^31, 2^53 and past it, 2^64 - 1, overlong. */
const VARINTS: number[][] = [
  [0], [1], varint(-1), varint(2 ** 31), varint(2 ** 53 - 1), varint(2 ** 53), varint(2n ** 64n - 1n),
  [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], [0x81, 0x00],
];

/** Every mutation of one frame: each field retyped, repeated, dropped, renumbered to its neighbours; unknown fields at each level; varints reshaped. */
function* mutants(frame: Uint8Array): Generator<[string, Uint8Array]> {
  const tree = parse(frame);
  if (!tree) return;
  for (const path of paths(tree)) {
    const at = `field ${path.join('.')}`;
    const apply = (change: (list: Node[], i: number) => Node[]): Uint8Array => serialize(edit(tree, path, change));
    for (let wt = 0; wt < 8; wt++) yield [`${at} as wire type ${wt}`, apply((l, i) => [...l.slice(0, i), ...retyped(l[i]!, wt), ...l.slice(i + 1)])];
    yield [`${at} repeated`, apply((l, i) => [...l.slice(0, i + 1), l[i]!, ...l.slice(i + 1)])];
    yield [`${at} dropped`, apply((l, i) => [...l.slice(0, i), ...l.slice(i + 1)])];
    for (const d of [-2, -1, 1, 2]) {
      yield [`${at} renumbered ${d}`, apply((l, i) => l.map((n, k) => (k === i ? { ...n, no: Math.max(1, n.no + d) } : n)))];
      yield [`${at} joined by its field ${d}`, apply((l, i) => [...l.slice(0, i + 1), { ...l[i]!, no: Math.max(1, l[i]!.no + d) }, ...l.slice(i + 1)])];
    }
    for (const [wt, bytes] of [[0, [5]], [1, [1, 2, 3, 4, 5, 6, 7, 8]], [2, [2, 0x08, 0x01]], [5, [1, 2, 3, 4]]] as const) {
      yield [`${at} beside an unknown wire type ${wt} field`, apply((l, i) => [...l.slice(0, i), raw(99, wt, [...bytes].slice(wt === 2 ? 1 : 0)), ...l.slice(i)])];
    }
    yield [`${at} beside an unknown group`, apply((l, i) => [...l.slice(0, i), raw(98, 3, [0x08, 0x01]), raw(98, 4, []), ...l.slice(i)])];
    if (tree[path[0]!] && path.length === 1) continue;
    const node = path.reduce<{ list: Node[]; node?: Node }>((acc, i) => ({ list: acc.node?.children ?? acc.list, node: (acc.node?.children ?? acc.list)[i] }), { list: tree }).node!;
    if (node.wt === 0) for (const v of VARINTS) yield [`${at} varint ${v.length} bytes`, apply((l, i) => l.map((n, k) => (k === i ? raw(n.no, 0, v) : n)))];
  }
  // Cut anywhere: truncated tags, varints, lengths and payloads.
  for (let cut = 0; cut < frame.length; cut++) yield [`cut at ${cut}`, frame.subarray(0, cut)];
  // A varint that runs off the end of its message.
  yield ['trailing unterminated varint', new Uint8Array([...frame, 0x08, 0x80])];
}

describe('protobuf decoder agrees with @ag-ui/proto', () => {
  it('names the same media type', () => {
    assert.equal(PROTO_MEDIA_TYPE, AGUI_MEDIA_TYPE);
  });

  it('on the differential corpus: generated scenarios and their mutants, frame by frame', () => {
    // The protobuf campaign of test/analyzer/differential.test.ts: its seed, scenario count and mutants.
    const rng = new Rng(0x5eed_a6e1 ^ 0xb1a5);
    let n = 0;
    let values = 0;
    for (let s = 0; s < 150; s++) {
      const { events } = generateScenario(rng, s);
      for (const variant of [events, mutate(rng, events).frames, mutate(rng, events).frames]) {
        let body: Uint8Array;
        try {
          body = encodeProto(variant);
        } catch {
          continue;
        }
        for (const frame of frames(body)) {
          if (agree(frame, `corpus frame ${n++}`).startsWith('value')) values++;
        }
      }
    }
    assert.ok(n > 5000, `only ${n} frames`);
    assert.ok(values > n * 0.9, `only ${values} of ${n} frames decode`);
  });

  it('on every event type with every field, and on each frame mutated field by field', () => {
    const seen = new Map<string, number>();
    let sampled = 0;
    for (const event of samples) {
      const frame = encodeOne(event);
      if (!frame) continue;
      sampled++;
      agree(frame, `sample ${String(event.type)}`);
      for (const [what, bytes] of mutants(frame)) {
        const result = agree(bytes, `${String(event.type)}: ${what}`);
        const kind = result.startsWith('value') ? 'value' : result;
        seen.set(kind, (seen.get(kind) ?? 0) + 1);
      }
    }
    assert.ok(sampled >= 15, `only ${sampled} sample events encode`);
    if (process.env.PROTO_SHOW) console.log(seen);
    // The mutations reach every outcome: decoded values, later-version arms, and each kind of failure.
    for (const kind of ['value', 'unknown variant', 'error Invalid event', 'error premature EOF']) {
      assert.ok((seen.get(kind) ?? 0) > 0, `no mutant ended as ${kind}: ${JSON.stringify([...seen])}`);
    }
  });

  it('on every oneof arm: each envelope arm, content part and source, each Value kind', () => {
    const parts = [
      { type: 'text', text: 't', id: 'p', metadata: { a: [1, 'x', true, null, { b: 2.5 }] } },
      { type: 'image', source: { type: 'data', value: 'AAAA', mimeType: 'image/png' }, metadata: 'm' },
      { type: 'audio', source: { type: 'url', value: 'https://x', mimeType: 'audio/mpeg' }, id: 'a' },
      { type: 'video', source: { type: 'file', value: 'f', provider: 'p', mimeType: 'video/mp4' } },
      { type: 'document', source: { type: 'url', value: 'https://d' }, metadata: [] },
    ];
    const arms = [
      { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant', name: 'n' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'naïve ☃ 𝄞 — a longer delta that leaves the short-string path' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm' },
      { type: 'TOOL_CALL_START', toolCallId: 'c', toolCallName: 'f', parentMessageId: 'm' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c', delta: '{"a":' },
      { type: 'TOOL_CALL_END', toolCallId: 'c' },
      { type: 'STATE_SNAPSHOT', snapshot: { n: -0.5, big: 2 ** 60, s: '', l: [[]], o: {}, z: null, t: false } },
      { type: 'STEP_STARTED', stepName: 's' },
      { type: 'STEP_FINISHED', stepName: 's' },
      { type: 'REASONING_START', messageId: 'r' },
      { type: 'REASONING_MESSAGE_START', messageId: 'r', role: 'reasoning' },
      { type: 'REASONING_MESSAGE_CONTENT', messageId: 'r', delta: 'd' },
      { type: 'REASONING_MESSAGE_END', messageId: 'r' },
      { type: 'REASONING_MESSAGE_CHUNK', messageId: 'r', delta: 'd' },
      { type: 'REASONING_END', messageId: 'r' },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r', outcome: { type: 'cancelled' } },
      { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
      { type: 'SUBAGENT_FINISHED', subagentRunId: 's', outcome: { type: 'success' } },
      { type: 'TOOL_CALL_RESULT', messageId: 'm', toolCallId: 'c', content: parts },
      { type: 'TOOL_CALL_RESULT', messageId: 'm', toolCallId: 'c', content: 'plain' },
      { type: 'CUSTOM', name: 'x', value: 'just a string', timestamp: 5 },
      ...samples,
    ];
    let n = 0;
    const types = new Set<string>();
    for (const event of arms) {
      const frame = encodeOne(event);
      if (!frame) continue;
      assert.match(agree(frame, `arm ${String(event.type)}`), /^value /);
      types.add(String(event.type));
      n++;
    }
    assert.ok(types.size >= 28, `only ${types.size} event types encode: ${[...types].join(', ')}`);
    assert.ok(n >= 35);
  });

  it('on frames from a later version and on bytes that are no message', () => {
    const cases: [string, number[]][] = [
      ['an unknown arm only', [0x92, 0x03, 0x02, 0x08, 0x01]],
      ['an unknown arm whose payload is not a message', [0x92, 0x03, 0x02, 0x07, 0x01]],
      ['an unknown varint only', [0x90, 0x03, 0x01]],
      ['nothing', []],
      ['a zero tag', [0x00]],
      ['wire type 7', [0x0f]],
      ['an unterminated group', [0x0b]],
      ['a stray end group', [0x0c]],
      ['two known arms', [...encodeOne({ type: 'STEP_STARTED', stepName: 'a' })!, ...encodeOne({ type: 'STEP_FINISHED', stepName: 'a' })!]],
      ['the same arm twice, merged', [...encodeOne({ type: 'STEP_STARTED', stepName: 'a' })!, ...encodeOne({ type: 'STEP_STARTED', stepName: 'b', timestamp: 3 })!]],
      ['an arm declaring another type', [0x0a, 0x04, 0x0a, 0x02, 0x08, 0x05]],
      ['an arm with no base event', [0x0a, 0x03, 0x12, 0x01, 0x6d]],
      ['invalid UTF-8 in a string', [0x0a, 0x05, 0x0a, 0x00, 0x12, 0x01, 0xff]],
      ['a 2^53 timestamp', [0x0a, 0x0c, 0x0a, 0x0a, 0x10, ...varint(2 ** 53), 0]],
    ];
    for (const [what, bytes] of cases) agree(new Uint8Array(bytes), what);
    assert.equal(answer(decodeEvent, new Uint8Array(cases[0]![1])), 'unknown variant');
  });
});
