/**
 * Where an exchange on a socket ends. A socket outlives its exchanges, so the binding must say where each
 * ends: at the terminal event of the run its input asked for (basic/transports#the-binding-contract). A
 * terminal event naming no run (RUN_ERROR) ends the run last started. Browser-safe and free of imports:
 * the socket reader, the demo agent and the demo page's socket agent all read this one rule.
 */
export class RunEnd {
  /** The runId of the last RUN_STARTED. */
  current: unknown = undefined;

  constructor(private readonly requested: unknown) {}

  /** Whether `event`, the exchange's next, ends it. */
  endedBy(event: { type?: unknown; runId?: unknown }): boolean {
    if (event.type === 'RUN_STARTED') this.current = event.runId;
    if (event.type !== 'RUN_FINISHED' && event.type !== 'RUN_ERROR') return false;
    return ('runId' in event ? event.runId : this.current) === this.requested;
  }
}
