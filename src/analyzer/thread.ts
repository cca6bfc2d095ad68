import { isObject, pointer, type JsonObject } from '../json.ts';
import { defineRules } from '../rules/index.ts';
import type { FindingSink } from './sink.ts';
import type { PendingInterrupt, RunReport } from './types.ts';

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

/** The interrupts of `pending` (ids) that a resume list answers with no entry: each must be answered or abandoned. */
export function uncoveredBy(pending: Iterable<string>, resume: unknown): string[] {
  const answered = new Set((Array.isArray(resume) ? resume.filter(isObject) : []).map((e) => e.interruptId).filter((id) => typeof id === 'string'));
  return [...pending].filter((id) => !answered.has(id));
}

interface Pending {
  runId: string | null;
  /** Each interrupt as given, by id. */
  interrupts: Map<string, JsonObject>;
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
    resume.forEach((e, i) => {
      const id = typeof e.interruptId === 'string' ? e.interruptId : undefined;
      if (id === undefined) return;
      if (!pending.interrupts.has(id)) {
        sink.report(RESUME_RULES.unknownInterrupt, `resume[${i}] answers interrupt ${JSON.stringify(id)}, which run ${JSON.stringify(pending.runId)} did not raise`, { path: pointer('resume', i, 'interruptId') });
        return;
      }
      const expiresAt = pending.interrupts.get(id)?.expiresAt;
      const expires = Date.parse(String(expiresAt));
      if (e.status !== 'cancelled' && !Number.isNaN(expires) && expires <= sentAt) {
        sink.report(RESUME_RULES.answeredExpired, `resume[${i}] answers interrupt ${JSON.stringify(id)}, which expired at ${String(expiresAt)}: an expired interrupt can only be abandoned`, { path: pointer('resume', i) });
      }
    });
    const uncovered = uncoveredBy(pending.interrupts.keys(), resume);
    if (uncovered.length) {
      sink.report(
        RESUME_RULES.uncovered,
        `Run ${JSON.stringify(pending.runId)} was interrupted waiting on ${uncovered.map((x) => JSON.stringify(x)).join(', ')}, which this input's resume list does not cover: each must be answered or explicitly abandoned`,
        { path: input.resume === undefined ? null : '/resume' },
      );
    }
  }

  /**
   * What an input on `threadId` answers now: the interrupts its thread's last run ended waiting on, none
   * when that run ended otherwise, null when no exchange on the thread was seen.
   */
  pendingOf(threadId: string): PendingInterrupt[] | null {
    if (!this.threads.has(threadId)) return null;
    const pending = this.threads.get(threadId);
    if (!pending) return [];
    return [...pending.interrupts].map(([id, i]) => ({
      id,
      reason: typeof i.reason === 'string' ? i.reason : null,
      message: typeof i.message === 'string' ? i.message : null,
      runId: pending.runId,
    }));
  }

  /** Record how an exchange left its thread: its last run decides what the next input must answer. */
  record(threadId: string, runs: RunReport[], interruptsOf: (run: RunReport) => Map<string, JsonObject>): void {
    const last = runs.at(-1);
    if (!last) return;
    this.threads.set(threadId, last.outcome === 'interrupt' ? { runId: last.runId, interrupts: interruptsOf(last) } : null);
  }
}
