import type { ExchangeReport, RunReport } from '../analyzer/index.ts';
import { overview, type Overview, type Timing } from '../detail/index.ts';

/** What one file (or one value handed to the library) produced: its exchanges' reports, or why it could not be read. */
export interface FileResult {
  file: string;
  reports: ExchangeReport[];
  /** Each report's timing, by the same index; absent or null where the file recorded no times. */
  timings?: (Timing | null)[];
  error?: string;
}

/** One exchange in the documented `--format json` contract. */
export interface ContractExchange extends Pick<ExchangeReport, 'source' | 'era' | 'consumerVersion' | 'input' | 'negotiation' | 'verdict' | 'readiness' | 'findings' | 'transport'> {
  runs: Pick<RunReport, 'runId' | 'threadId' | 'requested' | 'outcome'>[];
  timing: Timing | null;
}

/** The JSON report `check --format json` prints and `check()` returns. */
export interface Contract {
  exchanges: ContractExchange[];
  /** What went wrong across them all, ranked (detail/overview.ts): what the panel's Overview lists; `exchange` indexes `exchanges`. */
  summary: Overview;
}

/** The documented `--format json` contract: exactly these keys, so consumers can rely on them. */
export function toContract(results: FileResult[]): Contract {
  const session = results.flatMap((r) => r.reports.map((report, i) => ({ report, timing: r.timings?.[i] ?? null })));
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
        ...(x.transport ? { transport: x.transport } : {}),
      })),
    ),
    summary: overview(session),
  };
}

/** The CLI's exit status for reports: 1 when a consumer must reject an exchange, else 0. */
export const statusOf = (reports: readonly Pick<ExchangeReport, 'verdict'>[]): 0 | 1 => (reports.some((x) => x.verdict === 'failed') ? 1 : 0);
