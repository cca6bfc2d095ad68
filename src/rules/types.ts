/** The vocabulary every finding is written in. Rule definitions live beside their checkers. */

export type Category =
  | 'schema'
  | 'unrecognised'
  | 'lifecycle'
  | 'identity'
  | 'version'
  | 'input'
  | 'streaming'
  | 'tool-call'
  | 'state'
  | 'interrupt'
  | 'subagent'
  | 'conversation'
  | 'transport';

export type Severity = 'error' | 'warning' | 'info';

export type ProtocolVersion = '1.0' | '1.1';

export interface Rule {
  /** Stable id, `area/kebab-name`; part of the CLI's JSON contract. */
  readonly id: string;
  readonly category: Category;
  readonly severity: Severity;
  /** A conforming consumer must reject the stream (or a producer the input) when this fires. */
  readonly fatal: boolean;
  /** Section of the spec the rule rests on, relative to `/spec/<version>/`, e.g. `basic/processing#the-rule`. */
  readonly spec: string;
  /** One line, for rule listings and SARIF. */
  readonly title: string;
}

/** The CLI's JSON contract for one finding. */
export interface Finding {
  rule: string;
  category: Category;
  severity: Severity;
  message: string;
  /** Index of the event (in stream order, counting every frame) the finding is about. */
  event: number | null;
  /** JSON Pointer into that event, or into the input when `event` is null. */
  path: string | null;
  /** Absolute spec path, e.g. `/spec/1.0/basic/processing#the-rule`. */
  spec: string;
  /**
   * Present, and true, on a pre-1.0 exchange's 1.0-readiness items: what a 1.0 consumer would strip,
   * reject or read differently after an upgrade. They never fail the exchange (analyzer/era.ts).
   */
  readiness?: true;
}

export interface Where {
  event?: number | null;
  path?: string | null;
}

/** Builds a finding from a rule; the version picks which frozen spec the citation points at. */
export function makeFinding(rule: Rule, version: ProtocolVersion, message: string, where: Where = {}): Finding {
  return {
    rule: rule.id,
    category: rule.category,
    severity: rule.severity,
    message,
    event: where.event ?? null,
    path: where.path ?? null,
    spec: `/spec/${version}/${rule.spec}`,
  };
}

/** Declares a group of rules; the key doubles as the checker's handle. */
export function defineRules<K extends string>(rules: Record<K, Rule>): Record<K, Rule> {
  return rules;
}
