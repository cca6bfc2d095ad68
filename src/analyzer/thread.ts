import { isObject, pointer, type JsonObject } from '../json.ts';
import { defineRules } from '../rules/types.ts';
import type { FindingSink } from './sink.ts';
import type { RunReport } from './types.ts';

export const RESUME_RULES = defineRules({
  uncovered: {
    id: 'interrupt/resume-uncovered',
    category: 'interrupt',
    severity: 'error',
    fatal: true,
    spec: 'basic/patterns/interrupt-resume#resuming',
    title: 'The resume list must cover every interrupt of the run being continued (omission is not abandonment)',
  },
  unknownInterrupt: {
    id: 'interrupt/resume-unknown-interrupt',
    category: 'interrupt',
    severity: 'warning',
    fatal: false,
    spec: 'basic/patterns/interrupt-resume#resuming',
    title: 'A resume entry names an interrupt the run being continued did not raise',
  },
  answersNothing: {
    id: 'interrupt/resume-answers-nothing',
    category: 'interrupt',
    severity: 'warning',
    fatal: false,
    spec: 'basic/patterns/interrupt-resume#error-handling',
    title: 'A resume list on a run that continues no interrupted run answers nothing',
  },
  answeredExpired: {
    id: 'interrupt/answered-after-expiry',
    category: 'interrupt',
    severity: 'error',
    fatal: true,
    spec: 'basic/patterns/interrupt-resume#resuming',
    title: 'An interrupt judged expired can only be abandoned, not answered',
  },
});

interface Pending {
  runId: string | null;
  /** interrupt id → expiresAt as given, if any */
  interrupts: Map<string, unknown>;
}

/**
 * Carries what one exchange leaves open on its thread into the next: the interrupts of the last
 * interrupted run, which the next input's resume list must cover (basic/patterns/interrupt-resume).
 */
export class ThreadTracker {
  /** threadId → the interrupted run awaiting answers, or null when the last run ended otherwise */
  private readonly threads = new Map<string, Pending | null>();

  /** Judge an input's resume list against what its thread is waiting for. `sentAt` is ms since epoch. */
  checkInput(sink: FindingSink, input: JsonObject, sentAt: number): void {
    if (typeof input.threadId !== 'string') return;
    const resume = Array.isArray(input.resume) ? input.resume.filter(isObject) : [];
    const known = this.threads.has(input.threadId);
    const pending = this.threads.get(input.threadId) ?? null;
    if (!pending) {
      if (known && resume.length) sink.report(RESUME_RULES.answersNothing, `resume carries ${resume.length} entr${resume.length === 1 ? 'y' : 'ies'}, but the thread's last run was not interrupted: they answer nothing`, { path: '/resume' });
      return;
    }
    const answered = new Set<string>();
    resume.forEach((e, i) => {
      const id = typeof e.interruptId === 'string' ? e.interruptId : undefined;
      if (id === undefined) return;
      if (!pending.interrupts.has(id)) {
        sink.report(RESUME_RULES.unknownInterrupt, `resume[${i}] answers interrupt ${JSON.stringify(id)}, which run ${JSON.stringify(pending.runId)} did not raise`, { path: pointer('resume', i, 'interruptId') });
        return;
      }
      answered.add(id);
      const expires = Date.parse(String(pending.interrupts.get(id)));
      if (e.status !== 'cancelled' && !Number.isNaN(expires) && expires <= sentAt) {
        sink.report(RESUME_RULES.answeredExpired, `resume[${i}] answers interrupt ${JSON.stringify(id)}, which expired at ${String(pending.interrupts.get(id))}: an expired interrupt can only be abandoned`, { path: pointer('resume', i) });
      }
    });
    const uncovered = [...pending.interrupts.keys()].filter((id) => !answered.has(id));
    if (uncovered.length) {
      sink.report(
        RESUME_RULES.uncovered,
        `Run ${JSON.stringify(pending.runId)} was interrupted waiting on ${uncovered.map((x) => JSON.stringify(x)).join(', ')}, which this input's resume list does not cover: each must be answered or explicitly abandoned`,
        { path: input.resume === undefined ? null : '/resume' },
      );
    }
  }

  /** Record how an exchange left its thread: its last run decides what the next input must answer. */
  record(threadId: string, runs: RunReport[], interruptsOf: (run: RunReport) => Map<string, unknown>): void {
    const last = runs.at(-1);
    if (!last) return;
    this.threads.set(threadId, last.outcome === 'interrupt' ? { runId: last.runId, interrupts: interruptsOf(last) } : null);
  }
}
