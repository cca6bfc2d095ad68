/**
 * Generated RunAgentInputs and their mutations, member by member: every member and nested member of the
 * input (messages of every role and content part, tools and their parameters, context entries, state,
 * forwardedProps, resume entries, parentRunId) set to null, left out, given each wrong JSON type, emptied,
 * given an extra member, or given a value outside its closed set. The input differential judges each one.
 */
import { Rng } from './prng.ts';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Obj = { [k: string]: Json };

/** Which era's client the base input looks like: a pre-1.0 one sends tools and context always, and knows no file source or tool content parts. */
export type Era = 'pre-1.0' | '1.0';

const word = (rng: Rng): string => rng.pick(['a', 'weather', 'x-1', 'Zürich', '', 'call_9', '中文']);

function source(rng: Rng, era: Era): Obj {
  const kinds = era === '1.0' ? ['data', 'url', 'file'] : ['data', 'url'];
  switch (rng.pick(kinds)) {
    case 'data':
      return { type: 'data', value: 'AAEC', mimeType: rng.pick(['image/png', 'application/pdf']) };
    case 'url':
      return rng.chance(0.5) ? { type: 'url', value: 'https://example.com/a.png' } : { type: 'url', value: 'https://example.com/a.png', mimeType: 'image/png' };
    default:
      return { type: 'file', value: 'file-1', provider: 'openai', mimeType: 'application/pdf' };
  }
}

function part(rng: Rng, era: Era): Obj {
  const type = rng.pick(['text', 'text', 'image', 'audio', 'video', 'document']);
  if (type === 'text') return { type: 'text', text: word(rng) };
  return rng.chance(0.3) ? { type, source: source(rng, era), metadata: { k: 1 } } : { type, source: source(rng, era) };
}

function message(rng: Rng, era: Era, i: number, calls: string[]): Obj {
  const id = `m${i}`;
  const extras = (m: Obj): Obj => {
    if (rng.chance(0.2)) m.name = word(rng);
    if (rng.chance(0.15)) m.metadata = { source: 'ui', n: null };
    if (rng.chance(0.1)) m.encryptedValue = 'opaque';
    return m;
  };
  switch (rng.pick(['developer', 'system', 'user', 'user', 'assistant', 'tool', 'reasoning'])) {
    case 'developer':
      return extras({ id, role: 'developer', content: word(rng) });
    case 'system':
      return extras({ id, role: 'system', content: word(rng) });
    case 'user':
      return extras({ id, role: 'user', content: rng.chance(0.5) ? word(rng) : Array.from({ length: rng.int(1, 3) }, () => part(rng, era)) });
    case 'assistant': {
      const m: Obj = { id, role: 'assistant' };
      if (rng.chance(0.7)) m.content = word(rng);
      if (rng.chance(0.5)) {
        const call = `call-${i}`;
        calls.push(call);
        m.toolCalls = [{ id: call, type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } }];
      }
      return extras(m);
    }
    case 'tool': {
      const m: Obj = { id, role: 'tool', toolCallId: calls.at(-1) ?? 'call-0', content: era === '1.0' && rng.chance(0.3) ? [part(rng, era)] : word(rng) };
      if (rng.chance(0.2)) m.error = 'failed';
      return m;
    }
    default:
      return { id, role: 'reasoning', content: word(rng) };
  }
}

/** A RunAgentInput such as a client of `era` sends, without protocolVersion (the caller declares one). */
export function baseInput(rng: Rng, era: Era): Obj {
  const calls: string[] = [];
  const input: Obj = { threadId: `thread-${rng.int(1, 9)}`, runId: `run-${rng.int(1, 9)}`, messages: Array.from({ length: rng.int(0, 4) }, (_, i) => message(rng, era, i, calls)) };
  if (rng.chance(0.3)) input.parentRunId = 'run-0';
  const tools = Array.from({ length: rng.int(0, 2) }, (_, i): Obj => ({ name: `tool${i}`, description: word(rng), parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }));
  const context = Array.from({ length: rng.int(0, 2) }, (): Obj => ({ description: word(rng), value: word(rng) }));
  // A pre-1.0 client always sends both lists (0.0.59's HttpAgent); 1.0 lets them be left out.
  if (era === 'pre-1.0' || rng.chance(0.7)) input.tools = tools;
  if (era === 'pre-1.0' || rng.chance(0.7)) input.context = context;
  if (rng.chance(0.7)) input.state = rng.pick<Json>([{}, { count: 1, items: ['a'] }, [1, 2], 'text', 0]);
  if (rng.chance(0.6)) input.forwardedProps = rng.pick<Json>([{}, { mode: 'fast', nested: { n: null } }]);
  if (rng.chance(0.3)) input.resume = [{ interruptId: 'int-1', status: rng.pick(['resolved', 'cancelled']), ...(rng.chance(0.6) ? { payload: { ok: true } } : {}) }];
  return input;
}

export type MutationKind = 'null' | 'absent' | 'string' | 'number' | 'boolean' | 'array' | 'object' | 'empty' | 'extra-member' | 'out-of-set' | 'legacy-binary';

export interface Mutation {
  kind: MutationKind;
  /** JSON Pointer of the member changed. */
  at: string;
}

/** Every member's pointer, the root's own included (''), with its value. */
function members(v: Json, at = ''): [string, Json][] {
  const out: [string, Json][] = [[at, v]];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...members(x, `${at}/${i}`)));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...members(x, `${at}/${k}`));
  return out;
}

/** Members whose value is one of a closed set: a role, a part's or source's type, a status, a tool call's type. */
const CLOSED = /\/(role|type|status)$/;

/** Changes one member of `input`, picked at random, in a copy: the copy and the change made. */
export function mutate(rng: Rng, input: Obj): { value: Obj; mutation: Mutation } {
  const value = structuredClone(input);
  const all = members(value);
  // A top-level member now and then: nested ones outnumber them many times over.
  const [at, current] = rng.pick(rng.chance(0.3) ? all.filter(([p]) => p.split('/').length === 2) : all);
  const kinds: MutationKind[] = at === '' ? ['extra-member'] : ['null', 'absent', 'string', 'number', 'boolean', 'array', 'object', 'empty'];
  if (at !== '' && current !== null && typeof current === 'object' && !Array.isArray(current)) kinds.push('extra-member', 'extra-member');
  if (CLOSED.test(at)) kinds.push('out-of-set', 'out-of-set', 'out-of-set');
  if (/^\/messages\/\d+\/content\/\d+$/.test(at)) kinds.push('legacy-binary', 'legacy-binary');
  const kind = rng.pick(kinds);
  if (kind === 'extra-member') {
    (current as Obj)[rng.pick(['zzFuture', 'note', 'constructor'])] = rng.pick<Json>([1, null, 'x']);
    return { value, mutation: { kind, at } };
  }
  const tokens = at.split('/').slice(1);
  let parent: Json = value;
  for (const t of tokens.slice(0, -1)) parent = Array.isArray(parent) ? parent[Number(t)]! : (parent as Obj)[t]!;
  const key = tokens.at(-1)!;
  const replace = (v: Json | undefined): void => {
    if (Array.isArray(parent)) {
      if (v === undefined) parent.splice(Number(key), 1);
      else parent[Number(key)] = v;
    } else if (v === undefined) delete (parent as Obj)[key];
    else (parent as Obj)[key] = v;
  };
  switch (kind) {
    case 'null': replace(null); break;
    case 'absent': replace(undefined); break;
    case 'string': replace(rng.pick(['text', '0'])); break;
    case 'number': replace(rng.pick([0, 1.5, -1])); break;
    case 'boolean': replace(rng.chance(0.5)); break;
    case 'array': replace(rng.pick<Json>([[], ['x'], [{}]])); break;
    case 'object': replace(rng.pick<Json>([{}, { zz: 1 }])); break;
    case 'empty': replace(typeof current === 'string' ? '' : Array.isArray(current) ? [] : current !== null && typeof current === 'object' ? {} : ''); break;
    case 'out-of-set': replace(rng.pick(['binary', 'blob', 'admin', 'paused', 'FUNCTION', ''])); break;
    case 'legacy-binary': replace(rng.pick<Json>([{ type: 'binary', mimeType: 'image/png', data: 'AAEC' }, { type: 'binary', mimeType: 'application/pdf', url: 'https://example.com/a.pdf', filename: 'a.pdf' }, { type: 'binary', mimeType: 'image/png' }, { type: 'binary', data: 'AAEC' }])); break;
  }
  return { value, mutation: { kind, at } };
}
