/** Small pieces every view uses. */
import type { ComponentChildren } from 'preact';
import type { Finding } from '../src/rules/types.ts';
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

export function FindingLine({ f }: { f: Finding }) {
  return (
    <li class={`finding-line sev-${f.severity}`}>
      <Severity level={f.severity} /> <code>{f.rule}</code> {f.message} <SpecLink spec={f.spec} />
    </li>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}
