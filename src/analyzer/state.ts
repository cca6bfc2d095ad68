import { defineRules } from '../rules/types.ts';
import type { Ev } from './event.ts';
import { applyPatch } from './patch.ts';
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
  state: unknown;
  failed: boolean;
}

/**
 * The run's state as a consumer holds it: the input's `state` (absent = `{}`) until a snapshot replaces
 * it, RFC 6902 deltas applied in order. State persists across runs on one stream (events/lifecycle).
 */
export class StateTracker {
  /**
   * True while the state is not known: no input was given, so the baseline deltas apply to (the input's
   * `state`, events/state) is unknown until the first snapshot replaces it.
   */
  unknown = false;
  private saidUnknown = false;

  constructor(
    private readonly sink: FindingSink,
    public state: unknown,
    private readonly onStep?: (step: StateStep) => void,
  ) {}

  handle(ev: Ev, index: number): void {
    if (ev.type === 'STATE_SNAPSHOT') {
      this.unknown = false;
      this.state = ev.snapshot;
      this.onStep?.({ event: index, state: this.state, failed: false });
    } else if (ev.type === 'STATE_DELTA' && Array.isArray(ev.delta) && this.unknown) {
      // Said once: every delta until a snapshot is equally unjudgeable.
      if (!this.saidUnknown) this.sink.report(STATE_RULES.baselineUnknown, "A STATE_DELTA arrived before any STATE_SNAPSHOT, and without the request its baseline (the input's state) is unknown: deltas until the first snapshot cannot be checked", { event: index, path: '/delta' });
      this.saidUnknown = true;
    } else if (ev.type === 'STATE_DELTA' && Array.isArray(ev.delta)) {
      const result = applyPatch(this.state, ev.delta);
      if (result.ok) this.state = result.doc;
      else this.sink.report(STATE_RULES.patchFailed, `Failed to apply state patch: operation ${result.op} (${result.error}); the state is kept as it was`, { event: index, path: `/delta/${result.op}` });
      this.onStep?.({ event: index, state: this.state, failed: !result.ok });
    }
  }
}
