import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonArrayDecoder, JsonlDecoder } from '../../src/wire/jsonl.ts';
import { concat, ruleIds, run, utf8, values } from './helpers.ts';

describe('JSONL decoder', () => {
  it('reads one value per line, skipping blank lines and CRs', () => {
    const body = utf8.encode('{"a":1}\n\n  \r\n{"b":"é"}\r\n{"c":3}');
    const whole = run(new JsonlDecoder(), body);
    assert.deepEqual(values(whole), [{ a: 1 }, { b: 'é' }, { c: 3 }]);
    assert.deepEqual(ruleIds(whole), []);
    assert.deepEqual(
      whole.map((it) => [it.offset, it.size]),
      [
        [0, 8],
        [13, 12],
        [25, 7],
      ],
    );
    for (let cut = 0; cut <= body.length; cut++) {
      assert.deepEqual(run(new JsonlDecoder(), body, [cut]), whole, `split at ${cut}`);
    }
  });

  it('reports a line that is not JSON or not an object, and reads on', () => {
    const items = run(new JsonlDecoder(), utf8.encode('{"a":1}\nnope\n[1]\n{"b":2}\n'));
    assert.deepEqual(ruleIds(items), ['transport/frame-not-json', 'transport/frame-not-object']);
    assert.deepEqual(values(items), [{ a: 1 }, { b: 2 }]);
  });

  it('reports a final line cut short as truncated rather than malformed', () => {
    const items = run(new JsonlDecoder(), utf8.encode('{"a":1}\n{"b":'));
    assert.deepEqual(ruleIds(items), ['transport/jsonl-truncated-line']);
    assert.ok(items[1]!.kind === 'problem' && !items[1]!.rule.fatal);
  });

  it('reads json-seq record separators and a leading BOM', () => {
    const body = concat(new Uint8Array([0xef, 0xbb, 0xbf, 0x1e]), '{"a":1}\n\x1e{"b":2}\n');
    const items = run(new JsonlDecoder(), body);
    assert.deepEqual(values(items), [{ a: 1 }, { b: 2 }]);
    assert.equal(items[0]!.offset, 3);
  });
});

describe('JSON array decoder', () => {
  const body = utf8.encode(' [ {"type":"A","s":"]}\\"[{"} ,\n{"type":"B","n":[1,{"x":"}"}]}, 3, "str", null ,{"type":"Ω 👨\u200d👩"}]\n');

  it('reads each element as a frame, with its own position', () => {
    const items = run(new JsonArrayDecoder(), body);
    assert.deepEqual(values(items), [
      { type: 'A', s: ']}"[{' },
      { type: 'B', n: [1, { x: '}' }] },
      { type: 'Ω 👨\u200d👩' },
    ]);
    assert.deepEqual(ruleIds(items), ['transport/frame-not-object', 'transport/frame-not-object', 'transport/frame-not-object']);
    for (const it of items) {
      assert.equal(new TextDecoder().decode(body.subarray(it.offset, it.offset + it.size)), it.raw);
    }
  });

  it('gives identical frames however the bytes are split', () => {
    const whole = run(new JsonArrayDecoder(), body);
    for (let cut = 0; cut <= body.length; cut++) {
      assert.deepEqual(run(new JsonArrayDecoder(), body, [cut]), whole, `split at ${cut}`);
    }
    const bytewise = Array.from({ length: body.length }, (_, i) => i);
    assert.deepEqual(run(new JsonArrayDecoder(), body, bytewise), whole);
  });

  it('skips a leading BOM, even one split across chunks', () => {
    const bom = concat(new Uint8Array([0xef, 0xbb, 0xbf]), '[{"a":1}]');
    for (let cut = 0; cut <= bom.length; cut++) {
      const items = run(new JsonArrayDecoder(), bom, [cut]);
      assert.deepEqual(values(items), [{ a: 1 }]);
      assert.equal(items.length, 1);
      assert.equal(items[0]!.offset, 4);
    }
  });

  it('reports an element that is not JSON and reads on', () => {
    const items = run(new JsonArrayDecoder(), utf8.encode('[{"a":1},{"b":},tru,{"c":3}]'));
    assert.deepEqual(ruleIds(items), ['transport/frame-not-json', 'transport/frame-not-json']);
    assert.deepEqual(values(items), [{ a: 1 }, { c: 3 }]);
  });

  it('reports a body that is not an array, or is malformed between elements, as fatal', () => {
    for (const text of ['{"type":"RUN_STARTED"}', '[{"a":1} {"b":2}]', '[{"a":1},]', '[{"a":1}] x', 'hello']) {
      const items = run(new JsonArrayDecoder(), utf8.encode(text));
      const last = items[items.length - 1]!;
      assert.ok(last.kind === 'problem' && last.rule.id === 'transport/json-body-malformed' && last.rule.fatal, text);
      assert.equal(last.offset + last.size, text.length, text);
    }
  });

  it('reports a body that ends before the array closes as truncated', () => {
    for (const text of ['[{"a":1},{"b"', '[{"a":1}', '[', '', '[1']) {
      const items = run(new JsonArrayDecoder(), utf8.encode(text));
      assert.equal(ruleIds(items).at(-1), 'transport/json-body-truncated', text);
    }
    assert.deepEqual(values(run(new JsonArrayDecoder(), utf8.encode('[{"a":1},{"b"'))), [{ a: 1 }]);
  });
});
