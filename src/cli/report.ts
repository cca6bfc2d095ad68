import type { ExchangeReport } from '../analyzer/index.ts';
import type { Timing } from '../detail/index.ts';

/** What one command-line argument produced: its exchanges' reports, or why it could not be read. */
export interface FileResult {
  file: string;
  reports: ExchangeReport[];
  /** Each report's timing, by the same index; absent or null where the file recorded no times. */
  timings?: (Timing | null)[];
  error?: string;
}

/** The documented `--format json` contract: exactly these keys, so consumers can rely on them. */
export function toContract(results: FileResult[]): { exchanges: unknown[] } {
  return {
    exchanges: results.flatMap((r) =>
      r.reports.map((x, i) => ({
        source: x.source,
        era: x.era,
        consumerVersion: x.consumerVersion,
        input: x.input,
        negotiation: x.negotiation,
        runs: x.runs.map((run) => ({ runId: run.runId, threadId: run.threadId, requested: run.requested, outcome: run.outcome })),
        verdict: x.verdict,
        readiness: x.readiness,
        findings: x.findings,
        timing: r.timings?.[i] ?? null,
      })),
    ),
  };
}
