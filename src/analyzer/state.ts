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
 * large state, whose copy costs more), so a jump to a step far from any state known costs that many
 * deltas, not every delta back to the last snapshot.
 */
const CHECKPOINT = 32;
/** States read lately, kept so that a scrubber moving a step at a time moves from one it holds. */
const RECENT = 4;

/** What the steps of one tracker share: the states read lately, and the tracker's own document while it is the latest step's. */
class History {
  private readonly recent: Step[] = [];
  /** The step the tracker's document is the state of, until the tracker writes it again. */
  live: Step | null = null;

  constructor(
    /** Hands the tracker's document over to the latest step: the tracker copies what it writes from then on. */
    readonly adopt: () => unknown,
  ) {}

  /** `s` was read: it joins the states kept, and the longest unread leaves them unless it is a checkpoint. */
  read(s: Step): void {
    const at = this.recent.indexOf(s);
    if (at >= 0) this.recent.splice(at, 1);
    this.recent.push(s);
    if (this.recent.length > RECENT) this.recent.shift()!.forget();
  }

  /** The nearest later state known on `s`'s way from its snapshot, which it is reached from backwards; null when there is none. */
  after(s: Step): Step | null {
    let best: Step | null = null;
    for (const r of [...this.recent, ...(this.live ? [this.live] : [])]) {
      if (r.root === s.root && r.seq > s.seq && (best === null || r.seq < best.seq)) best = r;
    }
    return best;
  }
}

/**
 * A step whose state is worked out when first read, from the nearest state known: forwards from an
 * earlier one by replaying the deltas between with one patch target, or backwards from a later one by
 * the inverse patches the tracker noted as it applied each delta. Producing a step costs nothing whatever
 * the state's size; a scrubber moving a step at a time costs that step's operations, either way, and
 * holds a bounded number of states (RECENT, and checkpoints that cost no more than the deltas between).
 * A step without `prev` is known from the start: a snapshot, or the input's state before any event.
 */
class Step implements StateStep {
  private known: boolean;
  /** Kept for good: a snapshot, the input's state, or a checkpoint on the way of a replay. */
  private pinned: boolean;
  /** The snapshot (or the input's state) this step's deltas lead from. */
  readonly root: Step;

  constructor(
    readonly event: number,
    readonly failed: boolean,
    private readonly prev: Step | null,
    /** The delta that led here from `prev`; none when it failed, which leaves the state as it was. */
    private readonly delta: readonly unknown[] | null,
    private readonly history: History,
    /** Position among the tracker's steps. */
    readonly seq: number,
    private value?: unknown,
    readonly ops: readonly unknown[] | null = null,
    readonly error: { op: number; error: string } | null = null,
    readonly previous: Step | null = prev,
    /** The patch that takes this step's state back to `prev`'s: empty when the delta failed. */
    private readonly inverse: readonly unknown[] = [],
  ) {
    this.known = this.pinned = prev === null;
    this.root = prev === null ? this : prev.root;
  }

  /** Let go of the state read, unless it is kept for good. */
  forget(): void {
    if (this.pinned) return;
    this.known = false;
    this.value = undefined;
  }

  get state(): unknown {
    if (!this.known) this.work();
    this.history.read(this);
    return this.value;
  }

  private work(): void {
    if (this.history.live === this) {
      this.value = this.history.adopt();
      this.known = true;
      return;
    }
    const later = this.history.after(this);
    const pending: Step[] = [];
    let from: Step = this;
    for (; !from.known && (later === null || this.seq - from.seq < later.seq - this.seq); from = from.prev!) pending.push(from);
    if (!from.known) return this.back(later!);
    let target = new PatchTarget(from.value);
    // Each delta applied here applied to this very state when the stream was read.
    for (let i = pending.length - 1, since = 0; i >= 1; i--) {
      const s = pending[i]!;
      if (s.delta) target.apply(s.delta);
      // A fresh target copies what it writes, so the checkpoint's state stays as it is; waiting for at least
      // as many deltas as the current target has copied members keeps that copying linear in the deltas.
      if (++since < Math.max(CHECKPOINT, target.copied)) continue;
      since = 0;
      s.known = s.pinned = true;
      s.value = target.doc;
      target = new PatchTarget(target.doc);
    }
    if (this.delta) target.apply(this.delta);
    this.known = true;
    this.value = target.doc;
  }

  /** Works this step's state out backwards from `later`'s, undoing each delta between. */
  private back(later: Step): void {
    const target = new PatchTarget(later.state);
    for (let s = later; s !== this; s = s.prev!) target.apply(s.inverse);
    this.known = true;
    this.value = target.doc;
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
  private readonly history = new History(() => {
    this.history.live = null;
    // Handed over: the document is the latest step's state from now on, and no write may reach it.
    this.target = new PatchTarget(this.target.doc);
    return this.target.doc;
  });
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
    this.last = onStep ? new Step(-1, false, null, null, this.history, 0, start) : null;
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
      if (this.last) this.step(new Step(index, false, null, null, this.history, this.last.seq + 1, ev.snapshot, null, null, this.last));
    } else if (type === 'STATE_DELTA' && Array.isArray(ev.delta) && this.unknown) {
      // Said once: every delta until a snapshot is equally unjudgeable.
      if (!this.saidUnknown) this.sink.report(STATE_RULES.baselineUnknown, "A STATE_DELTA arrived before any STATE_SNAPSHOT, and without the request its baseline (the input's state) is unknown: deltas until the first snapshot cannot be checked", { event: index, path: '/delta' });
      this.saidUnknown = true;
    } else if (type === 'STATE_DELTA' && Array.isArray(ev.delta)) {
      const inverse = this.last ? [] : undefined;
      const result = this.target.apply(ev.delta, inverse);
      if (!result.ok) this.sink.report(STATE_RULES.patchFailed, `Failed to apply state patch: operation ${result.op} (${result.error}); the state is kept as it was`, { event: index, path: `/delta/${result.op}` });
      const error = result.ok ? null : { op: result.op, error: result.error };
      if (this.last) this.step(new Step(index, !result.ok, this.last, result.ok ? ev.delta : null, this.history, this.last.seq + 1, undefined, ev.delta, error, this.last, inverse));
    }
  }

  private step(s: Step): void {
    this.last = s;
    // A snapshot's state is its own value, which the tracker's document is only until the first write.
    this.history.live = s.root === s ? null : s;
    this.onStep!(s);
  }
}
