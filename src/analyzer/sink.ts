import { makeFinding, type Finding, type ProtocolVersion, type Rule, type Where } from '../rules/index.ts';

/** Past this many findings of one rule in one exchange, only a count is kept: memory stays bounded on hostile streams. */
export const MAX_PER_RULE = 100;

/** Collects findings for one exchange, remembering whether any was fatal. */
export class FindingSink {
  readonly findings: Finding[] = [];
  fatal = false;
  /** Ids of the rules that fired fatally outside `pre10Readiness`: a pre-1.0 reading re-decides the verdict from them (era.ts). */
  readonly fatalRules = new Set<string>();
  /**
   * Findings a pre-1.0 reading counts as 1.0-readiness items whatever their rule, where the pre-1.0 client
   * accepts what the rest of the rule covers it rejecting (era.ts).
   */
  readonly pre10Readiness = new Set<Finding>();
  private readonly counts = new Map<string, number>();

  constructor(private readonly version: ProtocolVersion) {}

  report(rule: Rule, message: string, where?: Where, pre10Readiness = false): void {
    this.add(makeFinding(rule, this.version, message, where), rule.fatal, pre10Readiness);
  }

  /** A finding already built elsewhere (enforcement), counted like any other. */
  add(finding: Finding, fatal: boolean, pre10Readiness = false): void {
    if (fatal) {
      this.fatal = true;
      if (!pre10Readiness) this.fatalRules.add(finding.rule);
    }
    const n = (this.counts.get(finding.rule) ?? 0) + 1;
    this.counts.set(finding.rule, n);
    if (n > MAX_PER_RULE) return;
    this.findings.push(finding);
    if (pre10Readiness) this.pre10Readiness.add(finding);
  }

  /** Findings plus, for each capped rule, one line saying how many more there were. */
  list(): Finding[] {
    const out = this.findings.slice();
    for (const [id, n] of this.counts) {
      if (n <= MAX_PER_RULE) continue;
      const first = this.findings.find((f) => f.rule === id)!;
      const more = { ...first, message: `${n - MAX_PER_RULE} more findings of ${id} not listed`, event: null, path: null };
      // The count reads like the findings it stands for when those are all pre-1.0 readiness items.
      if (!this.fatalRules.has(id) && this.pre10Readiness.has(first)) this.pre10Readiness.add(more);
      out.push(more);
    }
    return out;
  }
}
