/**
 * When a WebSocket exchange ends. A socket outlives its exchanges, so the binding must say where each
 * ends: at the terminal event of the run the input asked for (basic/transports#the-binding-contract).
 * RUN_ERROR names no run, so it ends the run last started. Browser-safe: the demo agent and the demo
 * page's socket agent both read it, so they agree on it.
 */

export class RunEnd {
  /** The runId of the last RUN_STARTED. */
  private current: unknown = undefined;

  constructor(private readonly requested: string) {}

  /** Whether `event`, the next on the socket for this exchange, ends it. */
  endedBy(event: { type: string; runId?: unknown }): boolean {
    if (event.type === 'RUN_STARTED') this.current = event.runId;
    if (event.type !== 'RUN_FINISHED' && event.type !== 'RUN_ERROR') return false;
    return ('runId' in event ? event.runId : this.current) === this.requested;
  }
}
