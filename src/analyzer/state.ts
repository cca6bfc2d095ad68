import { defineRules } from '../rules/index.ts';
import type { Ev } from './event.ts';
import { PatchTarget } from './patch.ts';
import type { FindingSink } from './sink.ts';

export const STATE_RULES = defineRules({
  patchFailed: {
    id: 'state/patch-failed',
    category: 'state',
    severity: 'warning',
    fatal: false,
    spec: 'basic/patterns/snapshots',
    title: 'A STATE_DELTA that does not apply leaves the state as it was',
  },
  baselineUnknown: {
    id: 'state/baseline-unknown',
    category: 'state',
    severity: 'info',
    fatal: false,
    spec: 'events/state',
    title: "A STATE_DELTA before any snapshot applies to the input's state, which is unknown here: it cannot be checked",
  },
});

/** What the state was after one state event, for the panel's state view. */
export interface StateStep {
  event: number;
  readonly state: unknown;
  failed: boolean;
  /** A delta's operations as the event carried them; null for a snapshot. */
  readonly ops: readonly unknown[] | null;
  /** For a failed delta, the operation that failed (its index in `ops`) and why. */
  readonly error: { op: number; error: string } | null;
  /** The step before it (the input's state before the first event's step), which its change is measured against. */
  readonly previous: StateStep | null;
}

/**
 * Replaying deltas keeps a step's state at least every this-many steps on the way (further apart on a
 * large state, whose copy costs more), so reading the steps backwards (a scrubber) costs that many deltas
 * a step, not every delta back to the last snapshot.
 */
const CHECKPOINT = 32;

/**
 * A step whose state is worked out when first read, from the nearest earlier step already known, by
 * replaying the deltas between with one patch target: producing a step costs nothing whatever the
 * state's size, and reading the last one costs the state once plus the deltas since its snapshot.
 * A step without `prev` is known from the start: a snapshot, or the input's state before any event.
 */
class Step implements StateStep {
  private known: boolean;

  constructor(
    readonly event: number,
    readonly failed: boolean,
    private readonly prev: Step | null,
    /** The delta that led here from `prev`; none when it failed, which leaves the state as it was. */
    private readonly delta: readonly unknown[] | null,
    private value?: unknown,
    readonly ops: readonly unknown[] | null = null,
    readonly error: { op: number; error: string } | null = null,
    readonly previous: Step | null = prev,
  ) {
    this.known = prev === null;
  }

  get state(): unknown {
    if (this.known) return this.value;
    const pending: Step[] = [];
    let from: Step = this;
    for (; !from.known; from = from.prev!) pending.push(from);
    let target = new PatchTarget(from.value);
    // Each delta applied here applied to this very state when the stream was read.
    for (let i = pending.length - 1, since = 0; i >= 1; i--) {
      const s = pending[i]!;
      if (s.delta) target.apply(s.delta);
      // A fresh target copies what it writes, so the checkpoint's state stays as it is; waiting for at least
      // as many deltas as the current target has copied members keeps that copying linear in the deltas.
      if (++since < Math.max(CHECKPOINT, target.copied)) continue;
      since = 0;
      s.known = true;
      s.value = target.doc;
      target = new PatchTarget(target.doc);
    }
    if (this.delta) target.apply(this.delta);
    this.known = true;
    this.value = target.doc;
    return this.value;
  }
}

/**
 * The run's state as a consumer holds it: the input's `state` (absent = `{}`) until a snapshot replaces
 * it, RFC 6902 deltas applied in order. State persists across runs on one stream (events/lifecycle).
 * Deltas edit one working copy in place (see PatchTarget), so each costs its own size; the values the
 * events carry are never written.
 */
export class StateTracker {
  private target: PatchTarget;
  /** The latest step reported, which the next one is worked out from; kept only when steps are wanted. */
  private last: Step | null;
  /**
   * True while the state is not known: no input was given, so the baseline deltas apply to (the input's
   * `state`, events/state) is unknown until the first snapshot replaces it.
   */
  unknown = false;
  private saidUnknown = false;

  constructor(
    private readonly sink: FindingSink,
    start: unknown,
    private readonly onStep?: (step: StateStep) => void,
  ) {
    this.target = new PatchTarget(start);
    this.last = onStep ? new Step(-1, false, null, null, start) : null;
  }

  /** The state now; it changes in place as deltas apply. */
  get state(): unknown {
    return this.target.doc;
  }

  handle(ev: Ev, index: number): void {
    const { type } = ev;
    if (type === 'STATE_SNAPSHOT') {
      this.unknown = false;
      this.target = new PatchTarget(ev.snapshot);
      this.step(new Step(index, false, null, null, ev.snapshot, null, null, this.last));
    } else if (type === 'STATE_DELTA' && Array.isArray(ev.delta) && this.unknown) {
      // Said once: every delta until a snapshot is equally unjudgeable.
      if (!this.saidUnknown) this.sink.report(STATE_RULES.baselineUnknown, "A STATE_DELTA arrived before any STATE_SNAPSHOT, and without the request its baseline (the input's state) is unknown: deltas until the first snapshot cannot be checked", { event: index, path: '/delta' });
      this.saidUnknown = true;
    } else if (type === 'STATE_DELTA' && Array.isArray(ev.delta)) {
      const result = this.target.apply(ev.delta);
      if (!result.ok) this.sink.report(STATE_RULES.patchFailed, `Failed to apply state patch: operation ${result.op} (${result.error}); the state is kept as it was`, { event: index, path: `/delta/${result.op}` });
      if (this.last) this.step(new Step(index, !result.ok, this.last, result.ok ? ev.delta : null, undefined, ev.delta, result.ok ? null : { op: result.op, error: result.error }));
    }
  }

  private step(s: Step): void {
    if (!this.onStep) return;
    this.last = s;
    this.onStep(s);
  }
}
