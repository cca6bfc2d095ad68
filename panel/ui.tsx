/** Small pieces every view uses. */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Finding } from '../src/rules/index.ts';
import { specUrl } from './model.ts';

/** JSON exactly as received: nulls kept, key order kept. */
export function json(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

export function Json({ value, label }: { value: unknown; label: string }) {
  return <pre class="json" aria-label={label} tabIndex={0}>{json(value)}</pre>;
}

export function SpecLink({ spec, children }: { spec: string; children?: ComponentChildren }) {
  return (
    <a class="spec" href={specUrl(spec)} target="_blank" rel="noreferrer noopener" title={`Specification: ${spec}`}>
      {children ?? spec.replace(/^\/spec\//, '§ ')}
    </a>
  );
}

const SEVERITY_MARK: Record<string, string> = { error: '✖', warning: '▲', info: 'ℹ', fine: '✔' };

export function Severity({ level }: { level: string }) {
  return (
    <span class={`sev sev-${level}`}>
      <span aria-hidden="true">{SEVERITY_MARK[level] ?? '•'}</span> {level}
    </span>
  );
}

/** Marks a pre-1.0 exchange's 1.0-readiness item: work for the app's upgrade, not its bug today. */
export function ReadinessTag() {
  return <span class="badge readiness" title="What a 1.0 consumer would do differently once the app upgrades; it does not fail this pre-1.0 exchange">1.0 readiness</span>;
}

/** The era badge of a pre-1.0 exchange: neither side declared a protocolVersion. */
export function EraBadge() {
  return <span class="badge era" data-testid="era-badge" title="Neither the input nor any RUN_STARTED declares a protocolVersion: judged as its own pre-1.0 client would, with 1.0 readiness shown apart">pre-1.0</span>;
}

/** Findings that are the exchange's defects today, without a pre-1.0 exchange's readiness items. */
export function presentFindings(findings: readonly Finding[]): Finding[] {
  return findings.filter((f) => !f.readiness);
}

export function FindingLine({ f }: { f: Finding }) {
  return (
    <li class={`finding-line sev-${f.severity}`} data-readiness={f.readiness ? 'true' : undefined}>
      <Severity level={f.severity} /> {f.readiness ? <ReadinessTag /> : null}<code>{f.rule}</code> {f.message} <SpecLink spec={f.spec} />
    </li>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** Judging waits for a pause in the typing, so a fast typist costs one check, not one per key. */
export const CHECK_DELAY_MS = 150;

export type Asked<T> = { kind: 'judging' } | { kind: 'judged'; value: T } | { kind: 'failed'; why: string };

/** What `ask` answers for `text` (a worker's judgement of an editor's text), asked once the typing pauses; `ask` null asks nothing. */
export function useJudged<T>(text: string, ask: ((text: string) => Promise<T>) | null): Asked<T> {
  const [asked, setAsked] = useState<Asked<T>>({ kind: 'judging' });
  useEffect(() => {
    setAsked({ kind: 'judging' });
    if (!ask) return;
    let live = true;
    const timer = setTimeout(() => {
      ask(text).then((value) => live && setAsked({ kind: 'judged', value }), (e: unknown) => live && setAsked({ kind: 'failed', why: String(e) }));
    }, CHECK_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [text, ask === null]);
  return asked;
}
