/**
 * A recorded session as a file for a bug report: HAR 1.2 holding the exact request bodies and
 * response bytes with their timing, and the Inspector's analysis beside them.
 */
import { analyzeExchanges } from '../analyzer/index.ts';
import type { ExchangeReport } from '../analyzer/types.ts';
import type { CapturedExchange } from '../formats/exchange.ts';
import { writeHar } from '../formats/har.ts';
import { TOOL } from '../meta.ts';
import type { Finding, ProtocolVersion } from '../rules/types.ts';
import { DEFAULT_REDACTION, redactExchanges, type RedactionGroup, type RedactionReport } from './redact.ts';

export { DEFAULT_REDACTION, REDACTION_GROUPS, type RedactionGroup, type RedactionReport } from './redact.ts';

export interface ExportOptions {
  /** Groups of values to overwrite before anything is written or analysed; DEFAULT_REDACTION when absent. */
  redact?: readonly RedactionGroup[];
  /** Judge as this consumer version instead of the one each input declares. */
  as?: ProtocolVersion;
}

/** The log-level `_agui` of an exported session. */
export type SessionLogExtension = {
  tool: { name: string; version: string };
  /** The version the analysis judged as: the forced one, or the one every input declared (absent when they differ). */
  protocolVersion?: ProtocolVersion;
  redaction: RedactionReport & {
    /**
     * Whether the redacted session analyses as the original did (verdicts, runs, findings by
     * rule, severity, event and path). Fillers keep equal values equal only when both copies
     * were encoded alike; `changedExchanges` names the entries where that did not hold.
     */
    analysisPreserved: boolean;
    changedExchanges: number[];
  };
};

const findingShape = (f: Finding) => ({ rule: f.rule, severity: f.severity, event: f.event, path: f.path });

/** What an analysis says, without the words it says it in (messages may quote values; a redacted file quotes fillers). */
export function analysisShape(r: ExchangeReport): unknown {
  return {
    consumerVersion: r.consumerVersion,
    verdict: r.verdict,
    input: { present: r.input.present, verdict: r.input.verdict, findings: r.input.findings.map(findingShape) },
    negotiation: r.negotiation,
    runs: r.runs,
    findings: r.findings.map(findingShape),
  };
}

/**
 * HAR 1.2 text of the session. Redaction happens first, so the bodies, the timings and the analysis
 * in `_agui` all describe the same (redacted) bytes and no finding can quote a redacted value.
 */
export function exportSession(exchanges: CapturedExchange[], opts: ExportOptions = {}): string {
  const { exchanges: exported, report } = redactExchanges(exchanges, opts.redact ?? DEFAULT_REDACTION);
  const analysis = analyzeExchanges(exported, opts.as);
  const changedExchanges: number[] = [];
  // The query string is not among what the analysis reads; only redacted bodies need the comparison.
  if (report.groups.some((g) => g !== 'query')) {
    const original = analyzeExchanges(exchanges, opts.as);
    original.forEach((r, i) => {
      if (JSON.stringify(analysisShape(r)) !== JSON.stringify(analysisShape(analysis[i]!))) changedExchanges.push(i);
    });
  }
  const versions = new Set(analysis.map((r) => r.consumerVersion));
  const protocolVersion = opts.as ?? (versions.size === 1 ? [...versions][0] : undefined);
  const extension: SessionLogExtension = {
    tool: { name: TOOL.name, version: TOOL.version },
    redaction: { ...report, analysisPreserved: changedExchanges.length === 0, changedExchanges },
  };
  return writeHar(exported, {
    creator: { name: TOOL.name, version: TOOL.version },
    protocolVersion,
    analysis,
    extension,
  });
}
