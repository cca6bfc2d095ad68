/**
 * The faults an answer can carry, and their names. A name is the spec a user types (`stall:1500@5`), so
 * the record of an answered exchange says which were injected in the words that asked for them. Event
 * indices count every frame of the source stream from 0, as the analyzer numbers them in its findings.
 */

export type Fault =
  /** The answer waits `ms` more before event `before`, and everything after it waits with it. */
  | { kind: 'stall'; ms: number; before: number }
  /** The body ends after event `after`: a truncation. */
  | { kind: 'cut'; after: number }
  /** The body ends halfway through event `at`'s frame. */
  | { kind: 'cut-mid'; at: number }
  /** An HTTP error with a JSON body instead of the stream; `retryAfter` becomes the Retry-After header. */
  | { kind: 'status'; status: number; retryAfter?: string }
  /** A RUN_ERROR in place of the requested run's RUN_FINISHED. */
  | { kind: 'error-terminal' }
  | { kind: 'drop'; event: number }
  | { kind: 'dup'; event: number }
  /** At most this many bytes a second. */
  | { kind: 'drip'; bytesPerSecond: number };

export function faultName(f: Fault): string {
  switch (f.kind) {
    case 'stall':
      return `stall:${f.ms}@${f.before}`;
    case 'cut':
      return `cut@${f.after}`;
    case 'cut-mid':
      return `cut-mid@${f.at}`;
    case 'status':
      return `status:${f.status}${f.retryAfter === undefined ? '' : `:retry-after=${f.retryAfter}`}`;
    case 'error-terminal':
      return 'error@terminal';
    case 'drop':
      return `drop@${f.event}`;
    case 'dup':
      return `dup@${f.event}`;
    case 'drip':
      return `drip:${f.bytesPerSecond}`;
  }
}

/**
 * The faults an answer on a WebSocket can carry. A socket delivers each message whole and has no status
 * (RFC 6455 §5.4, §6.2), so an HTTP status, half a frame or a byte rate are none of its faults; a cut
 * closes the socket before the requested run's terminal event, the truncation a custom binding must let
 * a consumer tell from a closed run (basic/transports#the-binding-contract).
 */
const SOCKET_FAULTS: ReadonlySet<Fault['kind']> = new Set(['stall', 'cut', 'drop', 'dup', 'error-terminal']);
export const fitsSocket = (f: Fault): boolean => SOCKET_FAULTS.has(f.kind);

export const FAULT_SPECS = 'stall:<ms>@<event>, cut@<event>, cut-mid@<event>, status:<400-599>[:retry-after=<seconds>], error@terminal, drop@<event>, dup@<event>, drip:<bytes per second>';

const count = (s: string | undefined, min: number): number | null => {
  if (s === undefined || !/^\d+$/.test(s)) return null;
  const n = Number(s);
  return Number.isSafeInteger(n) && n >= min ? n : null;
};

/** Retry-After is delay-seconds or an HTTP date (RFC 9110 §10.2.3); a date's commas and spaces are allowed, no control character. */
const RETRY_AFTER = /^(\d+|[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT)$/;

/** The fault a spec names; throws a TypeError saying what the specs look like when it names none. */
export function parseFault(spec: string): Fault {
  const f = faultOf(spec.trim());
  if (f === null) throw new TypeError(`${JSON.stringify(spec)} is not a fault: give one of ${FAULT_SPECS}`);
  return f;
}

function faultOf(spec: string): Fault | null {
  let m: RegExpExecArray | null;
  if ((m = /^stall:(\d+)@(\d+)$/.exec(spec))) {
    const [ms, before] = [count(m[1], 1), count(m[2], 0)];
    return ms === null || before === null ? null : { kind: 'stall', ms, before };
  }
  if ((m = /^(cut|cut-mid|drop|dup)@(\d+)$/.exec(spec))) {
    const k = count(m[2], 0);
    if (k === null) return null;
    if (m[1] === 'cut') return { kind: 'cut', after: k };
    if (m[1] === 'cut-mid') return { kind: 'cut-mid', at: k };
    return m[1] === 'drop' ? { kind: 'drop', event: k } : { kind: 'dup', event: k };
  }
  if ((m = /^status:(\d{3})(?::retry-after=(.+))?$/.exec(spec))) {
    const status = Number(m[1]);
    if (status < 400 || status > 599 || (m[2] !== undefined && !RETRY_AFTER.test(m[2]))) return null;
    return m[2] === undefined ? { kind: 'status', status } : { kind: 'status', status, retryAfter: m[2] };
  }
  if (spec === 'error@terminal') return { kind: 'error-terminal' };
  if ((m = /^drip:(\d+)$/.exec(spec))) {
    const bytesPerSecond = count(m[1], 1);
    return bytesPerSecond === null ? null : { kind: 'drip', bytesPerSecond };
  }
  return null;
}
