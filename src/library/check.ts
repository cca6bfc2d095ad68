/**
 * `check` and `analyze` for code that holds what it checks in memory: a test runner's recorded body, an
 * array of events, a HAR or a fixture as parsed JSON. They read it with the readers `agui-inspector check`
 * reads files with and analyse it in one pass, so a library user gets the report the CLI prints.
 */
import { analyzeSession, type SessionExchange } from '../detail/index.ts';
import type { CapturedExchange } from '../exchange/index.ts';
import { readExchanges } from '../formats/index.ts';
import { isObject } from '../json.ts';
import type { ProtocolVersion } from '../rules/index.ts';
import { fileResult, toContract, type Contract } from './report.ts';

/**
 * What can be checked: a file's content (text or bytes: SSE, protobuf, JSONL, a JSON array of events, a
 * HAR, a fixture, the Inspector's recording), an array of events, or a parsed HAR, fixture or event.
 */
export type Checkable = string | Uint8Array | readonly unknown[] | Record<string, unknown>;

export interface CheckOptions {
  /** The RunAgentInput of a bare response body (text or object); a HAR or a fixture carries its own. */
  input?: string | Record<string, unknown>;
  /** Judge as this consumer version instead of the one the input declares (`--as`). */
  as?: ProtocolVersion;
  /** Names the exchanges in the report (default `input`). */
  name?: string;
  /** The stall threshold of the timing, ms (`--stall-ms`). */
  stallMs?: number;
  /** Told why `input` was not used: what was checked carries its own requests. */
  onInputUnused?: (reason: string) => void;
}

const encoder = new TextEncoder();

function bytesOf(source: Checkable): Uint8Array {
  if (typeof source === 'string') return encoder.encode(source);
  if (source instanceof Uint8Array) return source;
  if (Array.isArray(source) || isObject(source)) return encoder.encode(JSON.stringify(source));
  throw new TypeError('check() takes text, bytes, an array of events or a parsed HAR, fixture or event');
}

/** The exchanges `source` holds, as every reader hands them on; throws FormatError for what cannot be read. */
export function exchangesOf(source: Checkable, o: Pick<CheckOptions, 'input' | 'name' | 'onInputUnused'> = {}): CapturedExchange[] {
  const inputText = o.input === undefined || typeof o.input === 'string' ? o.input : JSON.stringify(o.input);
  return readExchanges(bytesOf(source), o.name ?? 'input', { inputText, onInputUnused: o.onInputUnused });
}

/** Every exchange's full report, timing and rejected tool calls, in order, resume coverage judged across them. */
export function analyze(source: Checkable, o: CheckOptions = {}): SessionExchange[] {
  return analyzeSession(exchangesOf(source, o), o);
}

/** The JSON report `agui-inspector check --format json` prints for the same content. */
export function check(source: Checkable, o: CheckOptions = {}): Contract {
  return toContract([fileResult(o.name ?? 'input', analyze(source, o))]);
}
