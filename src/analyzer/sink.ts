import { makeFinding, type Finding, type ProtocolVersion, type Rule, type Where } from '../rules/types.ts';

/** Past this many findings of one rule in one exchange, only a count is kept: memory stays bounded on hostile streams. */
export const MAX_PER_RULE = 100;

/** Collects findings for one exchange, remembering whether any was fatal. */
export class FindingSink {
  readonly findings: Finding[] = [];
  fatal = false;
  /** Ids of the rules that fired fatally: a pre-1.0 reading re-decides the verdict from them (era.ts). */
  readonly fatalRules = new Set<string>();
  private readonly counts = new Map<string, number>();

  constructor(private readonly version: ProtocolVersion) {}

  report(rule: Rule, message: string, where?: Where): void {
    if (rule.fatal) this.markFatal(rule.id);
    const n = (this.counts.get(rule.id) ?? 0) + 1;
    this.counts.set(rule.id, n);
    if (n <= MAX_PER_RULE) this.findings.push(makeFinding(rule, this.version, message, where));
  }

  /** A finding already built elsewhere (enforcement), counted like any other. */
  add(finding: Finding, fatal: boolean): void {
    if (fatal) this.markFatal(finding.rule);
    const n = (this.counts.get(finding.rule) ?? 0) + 1;
    this.counts.set(finding.rule, n);
    if (n <= MAX_PER_RULE) this.findings.push(finding);
  }

  private markFatal(rule: string): void {
    this.fatal = true;
    this.fatalRules.add(rule);
  }

  /** Findings plus, for each capped rule, one line saying how many more there were. */
  list(): Finding[] {
    const out = this.findings.slice();
    for (const [id, n] of this.counts) {
      if (n <= MAX_PER_RULE) continue;
      const first = this.findings.find((f) => f.rule === id)!;
      out.push({ ...first, message: `${n - MAX_PER_RULE} more findings of ${id} not listed`, event: null, path: null });
    }
    return out;
  }
}
