import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { MAX_PROTO_FRAME, ProtoDecoder } from '../../src/wire/proto.ts';
import { errorText } from '../../src/wire/frame.ts';
import type { WireEvent } from '../../src/wire/types.ts';
import { concat, ruleIds, run, values } from './helpers.ts';

const run1 = [
  { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
  { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Grüße 👨\u200d👩\u200d👧 e\u0301' },
  { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
  { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'search', parentMessageId: 'm1' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"q":"weather"}' },
  { type: 'TOOL_CALL_END', toolCallId: 'c1' },
  { type: 'STATE_DELTA', delta: [{ op: 'add', path: '/city', value: 'Oslo' }] },
  { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' },
] as BaseEvent[];

const encoder = new EventEncoder({ accept: 'application/vnd.ag-ui.event+proto' });
const frames = run1.map((e) => encoder.encodeProtobuf(e));
const body = concat(...frames);

/** A frame whose envelope holds only field 50 (length-delimited, a well-formed message inside): an arm from a later protocol. */
const futureArm = new Uint8Array([0, 0, 0, 5, 0x92, 0x03, 0x02, 0x08, 0x01]);

describe('protobuf decoder', () => {
  it('decodes a realistic run, with positions and raw message bytes', () => {
    const items = run(new ProtoDecoder(), body);
    assert.deepEqual(ruleIds(items), []);
    assert.deepEqual(
      values(items).map((v) => (v as { type: string }).type),
      run1.map((e) => e.type),
    );
    assert.deepEqual(values(items)[2], run1[2]);
    assert.deepEqual(values(items)[7], run1[7]);
    let offset = 0;
    items.forEach((it, i) => {
      const e = it as WireEvent;
      assert.equal(e.offset, offset);
      assert.equal(e.size, frames[i]!.length);
      assert.deepEqual(e.raw, frames[i]!.subarray(4));
      offset += e.size;
    });
  });

  it('gives identical events however the bytes are split', () => {
    const whole = run(new ProtoDecoder(), body);
    for (let cut = 0; cut <= body.length; cut++) {
      assert.deepEqual(run(new ProtoDecoder(), body, [cut]), whole, `split at ${cut}`);
    }
    const bytewise = Array.from({ length: body.length }, (_, i) => i);
    assert.deepEqual(run(new ProtoDecoder(), body, bytewise), whole);
  });

  it('drops a frame naming only an unknown envelope variant, with a warning, and reads on', () => {
    const items = run(new ProtoDecoder(), concat(frames[0]!, futureArm, frames[8]!));
    assert.deepEqual(
      items.map((it) => (it.kind === 'event' ? (it.value as { type: string }).type : it.rule.id)),
      ['RUN_STARTED', 'transport/proto-unknown-variant', 'RUN_FINISHED'],
    );
    const dropped = items[1]!;
    assert.ok(dropped.kind === 'problem' && dropped.frame && !dropped.rule.fatal);
    assert.equal(dropped.rule.severity, 'warning');
    assert.equal(dropped.offset, frames[0]!.length);
  });

  it('reports bytes that do not decode as fatal and reads on', () => {
    const garbage = new Uint8Array([0, 0, 0, 4, 0xff, 0xff, 0xff, 0xff]);
    const items = run(new ProtoDecoder(), concat(frames[0]!, garbage, frames[8]!));
    assert.deepEqual(ruleIds(items), ['transport/proto-undecodable']);
    assert.ok(items[1]!.kind === 'problem' && items[1]!.rule.fatal && items[1]!.frame);
    assert.equal(values(items).length, 2);
    assert.deepEqual(ruleIds(run(new ProtoDecoder(), new Uint8Array([0, 0, 0, 0]))), ['transport/proto-undecodable']);
  });

  it('reports a body that ends mid-frame or mid-prefix as truncated', () => {
    const cutMessage = run(new ProtoDecoder(), body.subarray(0, frames[0]!.length + 6));
    assert.deepEqual(ruleIds(cutMessage), ['transport/proto-truncated-frame']);
    assert.equal(cutMessage[1]!.offset, frames[0]!.length);
    assert.equal(cutMessage[1]!.size, 6);
    assert.ok(cutMessage[1]!.kind === 'problem' && !cutMessage[1]!.rule.fatal && !cutMessage[1]!.frame);
    const cutPrefix = run(new ProtoDecoder(), body.subarray(0, frames[0]!.length + 2));
    assert.deepEqual(ruleIds(cutPrefix), ['transport/proto-truncated-frame']);
  });

  it('stops at a length prefix too large to buffer', () => {
    const d = new ProtoDecoder();
    const items = d.push(concat(frames[0]!, new Uint8Array([0xff, 0xff, 0xff, 0xff, 1, 2, 3])), 0);
    assert.deepEqual(ruleIds(items), ['transport/proto-frame-too-large']);
    assert.equal(items[1]!.offset, frames[0]!.length);
    assert.deepEqual(d.push(frames[1]!, 1), []);
    assert.deepEqual(d.end(2), []);
    const limit = new Uint8Array(4);
    new DataView(limit.buffer).setUint32(0, MAX_PROTO_FRAME + 1);
    assert.deepEqual(ruleIds(run(new ProtoDecoder(), limit)), ['transport/proto-frame-too-large']);
  });
});

describe('a frame nested deeper than the stack reaches', () => {
  it('is undecodable with a reason a person can read, not the engine\'s words alone', () => {
    // A 6,000-deep Value recurses through Struct and Value readers until the stack runs out (#33.7).
    assert.equal(errorText(new RangeError('Maximum call stack size exceeded')), 'it nests deeper than a reader can follow (the call stack ran out)');
    assert.equal(errorText(new RangeError('index out of range: 4 + 10 > 12')), 'index out of range: 4 + 10 > 12');
  });
});
