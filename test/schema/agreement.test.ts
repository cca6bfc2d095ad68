import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as v1_0 from '../../src/schema/generated/v1_0.js';
import * as v1_1 from '../../src/schema/generated/v1_1.js';
import * as union1_0 from '../../src/schema/generated/v1_0.union.js';
import * as union1_1 from '../../src/schema/generated/v1_1.union.js';
import { enforce } from '../../src/schema/enforce.ts';
import type { ProtocolVersion } from '../../src/rules/types.ts';
import { corpus, referenceValidators, skipReason, type Check } from './reference.ts';
import { mutations, type Mutation } from './mutate.ts';
import * as extra from './samples.ts';

const generated = { '1.0': v1_0, '1.1': v1_1 };
const unions = { '1.0': union1_0, '1.1': union1_1 };

interface Sample { what: string; value: unknown; mutation?: Mutation; base: unknown; baseValid: boolean }

type Source = Pick<ReturnType<typeof corpus>[number], 'file' | 'stream' | 'input'>;

function samples(reference: Check, pick: (f: Source) => unknown[]): Sample[] {
  const out: Sample[] = [];
  const sources: Source[] = [...corpus(), { file: 'samples.ts', stream: extra.events, input: extra.input }];
  for (const fixture of sources) {
    pick(fixture).forEach((value, index) => {
      const what = `${fixture.file}#${index}`;
      const baseValid = reference(value);
      out.push({ what, value, base: value, baseValid });
      for (const mutation of mutations(value)) out.push({ what: `${what} ${mutation.kind} ${mutation.at}`, value: mutation.value, mutation, base: value, baseValid });
    });
  }
  return out;
}

/**
 * The strings fixed by a lone `const` rather than by a union or an enum: another value there is a
 * malformed known value, not an unrecognised member. Keyed by event type and pointer, or by the value.
 */
const LONE_CONSTS = new Set(['REASONING_MESSAGE_START /role', 'TOOL_CALL_RESULT /role', 'function']);

function loneConst(base: unknown, at: string): boolean {
  let original: unknown = base;
  for (const token of at.slice(1).split('/')) original = (original as Record<string, unknown>)[token];
  return LONE_CONSTS.has(`${String(typeOf(base))} ${at}`) || LONE_CONSTS.has(String(original));
}

const typeOf = (value: unknown): unknown => (typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined);

for (const version of ['1.1', '1.0'] as const) {
  test(`${version}: generated validators accept and reject exactly what the reference does, over the corpus and its mutations`, { skip: skipReason }, () => {
    const reference = referenceValidators(version);
    const events = samples(reference.event, (f) => f.stream);
    assert.ok(events.length > 4000, `only ${events.length} event samples`);
    for (const { what, value } of events) {
      const expected = reference.event(value);
      assert.equal(unions[version].Event(value), expected, `Event: ${what}`);
      const perType = typeof typeOf(value) === 'string' ? generated[version].eventValidators.get(typeOf(value) as string) : undefined;
      assert.equal(perType?.(value) ?? false, expected, `per-type: ${what}`);
    }
    for (const { what, value } of samples(reference.input, (f) => (f.input === undefined ? [] : [f.input]))) {
      assert.equal(generated[version].RunAgentInput(value), reference.input(value), `RunAgentInput: ${what}`);
    }
  });

  test(`${version}: enforcement verdicts agree with the reference and classify each kind of change`, { skip: skipReason }, () => {
    const reference = referenceValidators(version);
    const check = ({ value, mutation, base, baseValid, what }: Sample, valid: Check, run: (v: unknown, ver: ProtocolVersion) => ReturnType<typeof enforce.event>): void => {
      const result = run(value, version);
      const accepted = valid(value);
      if (accepted) {
        assert.equal(result.verdict, 'ok', what);
        assert.deepEqual(result.verdict === 'ok' && result.stripped, [], what);
        return;
      }
      if (result.verdict === 'ok') assert.ok(valid(result.value), `stripped value must satisfy the reference: ${what}`);
      if (result.verdict === 'fatal') assert.ok(result.errors.length > 0 && result.errors.every((e) => typeof e.path === 'string' && e.message.length > 0), what);
      if (!baseValid || mutation === undefined) return;
      switch (mutation.kind) {
        case 'drop':
        case 'wrong-type':
        case 'null':
          assert.equal(result.verdict, 'fatal', `malformed known value: ${what}`);
          break;
        case 'extra-property':
          assert.equal(result.verdict, 'ok', what);
          assert.deepEqual(result.verdict === 'ok' && result.stripped.map((s) => [s.path, s.reason]), [[`${mutation.at}/zzFuture`, 'unknown-property']], what);
          break;
        case 'unknown-tag':
          assert.equal(result.verdict === 'fatal', loneConst(base, mutation.at), `unrecognised member: ${what}`);
          break;
      }
    };
    let count = 0;
    for (const s of samples(reference.event, (f) => f.stream)) {
      check(s, reference.event, enforce.event);
      count += 1;
    }
    for (const s of samples(reference.input, (f) => (f.input === undefined ? [] : [f.input]))) {
      check(s, reference.input, enforce.input);
    }
    assert.ok(count > 4000);
  });
}
