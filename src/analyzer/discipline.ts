import { defineRules, type Rule } from '../rules/index.ts';
import { describeOwner, ownerOf, str, type Ev } from './event.ts';
import type { FindingSink } from './sink.ts';

export const DISCIPLINE_RULES = defineRules({
  textAlreadyOpen: {
    id: 'streaming/text-already-open',
    category: 'streaming',
    severity: 'error',
    fatal: true,
    spec: 'basic/patterns/streaming#open-content-close',
    title: 'A text message must not be opened while its messageId is already open',
  },
  textNotOpen: {
    id: 'streaming/text-not-open',
    category: 'streaming',
    severity: 'error',
    fatal: true,
    spec: 'basic/patterns/streaming#open-content-close',
    title: 'TEXT_MESSAGE_CONTENT and TEXT_MESSAGE_END need an open message',
  },
  reasoningAlreadyOpen: {
    id: 'streaming/reasoning-already-open',
    category: 'streaming',
    severity: 'error',
    fatal: true,
    spec: 'events/reasoning',
    title: 'A reasoning message or span must not be opened while its messageId is already open',
  },
  reasoningNotOpen: {
    id: 'streaming/reasoning-not-open',
    category: 'streaming',
    severity: 'error',
    fatal: true,
    spec: 'events/reasoning',
    title: 'Reasoning content and ends need an open reasoning message or span',
  },
  toolAlreadyOpen: {
    id: 'tool-call/already-open',
    category: 'tool-call',
    severity: 'error',
    fatal: true,
    spec: 'basic/patterns/streaming#open-content-close',
    title: 'A tool call must not be opened while its toolCallId is already open',
  },
  toolNotOpen: {
    id: 'tool-call/not-open',
    category: 'tool-call',
    severity: 'error',
    fatal: true,
    spec: 'basic/patterns/streaming#open-content-close',
    title: 'TOOL_CALL_ARGS and TOOL_CALL_END need an open tool call',
  },
  openAtFinish: {
    id: 'lifecycle/open-at-run-finished',
    category: 'lifecycle',
    severity: 'error',
    fatal: true,
    spec: 'events/lifecycle#after-a-run-closes',
    title: 'Everything a run opened must be closed before RUN_FINISHED',
  },
  stepAlreadyOpen: {
    id: 'lifecycle/step-already-open',
    category: 'lifecycle',
    severity: 'error',
    fatal: true,
    spec: 'events/lifecycle#steps',
    title: 'A step must not be opened while a step of that name is open',
  },
  stepNotStarted: {
    id: 'lifecycle/step-not-started',
    category: 'lifecycle',
    severity: 'error',
    fatal: true,
    spec: 'events/lifecycle#steps',
    title: 'STEP_FINISHED must close a step that was started',
  },
  subagentAlreadyActive: {
    id: 'subagent/already-active',
    category: 'subagent',
    severity: 'error',
    fatal: true,
    spec: 'events/subagents#lifecycle',
    title: 'An invocation must not be announced while its id is active',
  },
  subagentReused: {
    id: 'subagent/id-reused',
    category: 'subagent',
    severity: 'error',
    fatal: true,
    spec: 'events/subagents#lifecycle',
    title: 'The id of an invocation that finished in this run must not be reused',
  },
  subagentAnnouncedLate: {
    id: 'subagent/announced-after-attribution',
    category: 'subagent',
    severity: 'error',
    // The MUST binds the producer; a consumer must accept attribution whether or not it was announced.
    fatal: false,
    spec: 'events/subagents#lifecycle',
    title: 'An announced invocation must be announced before any event attributed to it',
  },
  subagentUnknownParent: {
    id: 'subagent/unknown-parent',
    category: 'subagent',
    severity: 'error',
    fatal: true,
    spec: 'events/subagents#nesting-and-parallelism',
    title: 'parentSubagentRunId must name an invocation announced in this run',
  },
  subagentNotStarted: {
    id: 'subagent/not-active',
    category: 'subagent',
    severity: 'error',
    fatal: true,
    spec: 'events/subagents#lifecycle',
    title: 'SUBAGENT_FINISHED and SUBAGENT_ERROR must close an announced, active invocation',
  },
  attributionMismatch: {
    id: 'subagent/attribution-mismatch',
    category: 'subagent',
    severity: 'error',
    fatal: true,
    spec: 'events/subagents#ownership',
    title: "A continuation's subagentRunId must agree with its opener's",
  },
  toolCallOwner: {
    id: 'subagent/tool-call-owner-differs',
    category: 'subagent',
    severity: 'error',
    fatal: true,
    spec: 'events/subagents#ownership',
    title: 'A tool call inherits the attribution of the message that holds it',
  },
});

interface Family {
  label: string;
  id: 'messageId' | 'toolCallId';
  already: Rule;
  notOpen: Rule;
}

const TEXT: Family = { label: 'text message', id: 'messageId', already: DISCIPLINE_RULES.textAlreadyOpen, notOpen: DISCIPLINE_RULES.textNotOpen };
const TOOL: Family = { label: 'tool call', id: 'toolCallId', already: DISCIPLINE_RULES.toolAlreadyOpen, notOpen: DISCIPLINE_RULES.toolNotOpen };
const REASONING_MSG: Family = { label: 'reasoning message', id: 'messageId', already: DISCIPLINE_RULES.reasoningAlreadyOpen, notOpen: DISCIPLINE_RULES.reasoningNotOpen };
const REASONING_SPAN: Family = { label: 'reasoning span', id: 'messageId', already: DISCIPLINE_RULES.reasoningAlreadyOpen, notOpen: DISCIPLINE_RULES.reasoningNotOpen };

/** event type → [family, what it does] */
const TRIADS = new Map<string, [Family, 'open' | 'continue' | 'close']>([
  ['TEXT_MESSAGE_START', [TEXT, 'open']],
  ['TEXT_MESSAGE_CONTENT', [TEXT, 'continue']],
  ['TEXT_MESSAGE_END', [TEXT, 'close']],
  ['TOOL_CALL_START', [TOOL, 'open']],
  ['TOOL_CALL_ARGS', [TOOL, 'continue']],
  ['TOOL_CALL_END', [TOOL, 'close']],
  ['REASONING_MESSAGE_START', [REASONING_MSG, 'open']],
  ['REASONING_MESSAGE_CONTENT', [REASONING_MSG, 'continue']],
  ['REASONING_MESSAGE_END', [REASONING_MSG, 'close']],
  ['REASONING_START', [REASONING_SPAN, 'open']],
  ['REASONING_END', [REASONING_SPAN, 'close']],
]);

/**
 * Open/close discipline inside one run: messages, tool calls, reasoning, steps and subagent invocations,
 * each matched by identifier and owner. Run-scoped: a new run starts with nothing open.
 */
export class RunDiscipline {
  private readonly open = new Map<Family, Map<string, string>>([
    [TEXT, new Map()],
    [TOOL, new Map()],
    [REASONING_MSG, new Map()],
    [REASONING_SPAN, new Map()],
  ]);
  /** owner + NUL + stepName */
  private readonly steps = new Set<string>();
  private readonly activeSubagents = new Set<string>();
  private readonly finishedSubagents = new Set<string>();
  private readonly attributedBeforeAnnounce = new Set<string>();
  /** messageId → owner, for activity continuations and tool calls naming their parent message */
  private readonly messageOwners = new Map<string, string>();

  constructor(private readonly sink: FindingSink) {}

  /** Whether `ev` carries an item's content (text, tool-call arguments, reasoning): a triad's `continue`. */
  handle(ev: Ev, index: number): boolean {
    // Read once: every event type meets this code, so each read of a member is a generic lookup.
    const { type } = ev;
    const owner = ownerOf(ev);
    if (owner !== '' && type !== 'SUBAGENT_STARTED' && !this.activeSubagents.has(owner) && !this.finishedSubagents.has(owner)) {
      this.attributedBeforeAnnounce.add(owner);
    }
    const triad = TRIADS.get(type);
    if (triad) {
      this.triad(triad[0], triad[1], ev, owner, index);
      return triad[1] === 'continue';
    }
    switch (type) {
      case 'STEP_STARTED':
      case 'STEP_FINISHED':
        this.step(ev, owner, index);
        break;
      case 'SUBAGENT_STARTED':
        this.subagentStarted(ev, index);
        break;
      case 'SUBAGENT_FINISHED':
      case 'SUBAGENT_ERROR':
        this.subagentEnded(ev, index);
        break;
      case 'ACTIVITY_SNAPSHOT': {
        const id = str(ev, 'messageId');
        if (id !== undefined) this.messageOwners.set(id, owner);
        break;
      }
      case 'ACTIVITY_DELTA': {
        const id = str(ev, 'messageId');
        const opener = id === undefined ? undefined : this.messageOwners.get(id);
        // A delta whose target is unknown is tolerated (events/activity); only a disagreeing tag is judged.
        if (opener !== undefined && typeof ev.subagentRunId === 'string' && ev.subagentRunId !== opener) {
          this.mismatch(ev, opener, `activity message ${JSON.stringify(id)}`, index);
        }
        break;
      }
    }
    return false;
  }

  /** RUN_FINISHED: everything opened must be closed already. */
  finish(index: number): void {
    // Reasoning left open is a 1.0-readiness item for a pre-1.0 exchange: @ag-ui/client 0.0.59's verifyEvents
    // refuses RUN_FINISHED over open steps, text messages, tool calls and subagents, never over reasoning (era.ts).
    const left: [string, boolean][] = [];
    for (const [fam, items] of this.open) if (items.size) left.push([`${fam.label}s still open: ${[...items.keys()].join(', ')}`, fam === REASONING_MSG || fam === REASONING_SPAN]);
    if (this.steps.size) left.push([`steps still open: ${[...this.steps].map((k) => k.split('\0')[1]).join(', ')}`, false]);
    if (this.activeSubagents.size) left.push([`subagent invocations still active: ${[...this.activeSubagents].join(', ')}`, false]);
    for (const [l, pre10Readiness] of left) this.sink.report(DISCIPLINE_RULES.openAtFinish, `Cannot send 'RUN_FINISHED' while ${l}`, { event: index }, pre10Readiness);
  }

  private triad(fam: Family, action: 'open' | 'continue' | 'close', ev: Ev, owner: string, index: number): void {
    const id = str(ev, fam.id);
    if (id === undefined) return; // enforcement already failed the event
    const items = this.open.get(fam)!;
    const opener = items.get(id);
    if (action === 'open') {
      if (opener !== undefined) {
        this.sink.report(fam.already, `${ev.type} opens ${fam.label} ${JSON.stringify(id)}, which is already open`, { event: index, path: `/${fam.id}` });
        return;
      }
      // An untagged tool call inherits the attribution of the message that holds it (events/subagents#ownership).
      const effective = fam === TOOL && typeof ev.subagentRunId !== 'string' ? (this.parentOwner(ev) ?? owner) : owner;
      items.set(id, effective);
      if (fam !== TOOL) this.messageOwners.set(id, owner);
      else this.checkToolOwner(ev, owner, index);
      return;
    }
    if (opener === undefined) {
      this.sink.report(fam.notOpen, `${ev.type}: No active ${fam.label} found with ID '${id}'`, { event: index, path: `/${fam.id}` });
      return;
    }
    if (typeof ev.subagentRunId === 'string' && owner !== opener) this.mismatch(ev, opener, `${fam.label} ${JSON.stringify(id)}`, index);
    if (action === 'close') items.delete(id);
  }

  private parentOwner(ev: Ev): string | undefined {
    const parent = str(ev, 'parentMessageId');
    return parent === undefined ? undefined : this.messageOwners.get(parent);
  }

  /** Only a tag can disagree: an untagged call simply belongs to its message's owner. */
  private checkToolOwner(ev: Ev, owner: string, index: number): void {
    if (typeof ev.subagentRunId !== 'string') return;
    const parent = str(ev, 'parentMessageId');
    const parentOwner = this.parentOwner(ev);
    if (parentOwner !== undefined && parentOwner !== owner) {
      this.sink.report(
        DISCIPLINE_RULES.toolCallOwner,
        `tool call ${JSON.stringify(ev.toolCallId)} is attributed to ${describeOwner(owner)} but its message ${JSON.stringify(parent)} to ${describeOwner(parentOwner)}`,
        { event: index, path: '/subagentRunId' },
      );
    }
  }

  private mismatch(ev: Ev, opener: string, what: string, index: number): void {
    this.sink.report(
      DISCIPLINE_RULES.attributionMismatch,
      `${ev.type} subagentRunId ${JSON.stringify(ev.subagentRunId)} does not match the owner of ${what}, ${describeOwner(opener)}`,
      { event: index, path: '/subagentRunId' },
    );
  }

  private step(ev: Ev, owner: string, index: number): void {
    const name = str(ev, 'stepName');
    if (name === undefined) return;
    const key = owner + '\0' + name;
    if (ev.type === 'STEP_STARTED') {
      if (this.steps.has(key)) this.sink.report(DISCIPLINE_RULES.stepAlreadyOpen, `STEP_STARTED opens step ${JSON.stringify(name)} of ${describeOwner(owner)}, which is already open`, { event: index, path: '/stepName' });
      else this.steps.add(key);
      return;
    }
    if (this.steps.delete(key)) return;
    const elsewhere = [...this.steps].find((k) => k.endsWith('\0' + name));
    if (elsewhere !== undefined) this.mismatch(ev, elsewhere.split('\0')[0]!, `step ${JSON.stringify(name)}`, index);
    else this.sink.report(DISCIPLINE_RULES.stepNotStarted, `STEP_FINISHED closes step ${JSON.stringify(name)} that was not started`, { event: index, path: '/stepName' });
  }

  private subagentStarted(ev: Ev, index: number): void {
    const id = str(ev, 'subagentRunId');
    if (id === undefined) return;
    const parent = str(ev, 'parentSubagentRunId');
    if (parent !== undefined && !this.activeSubagents.has(parent) && !this.finishedSubagents.has(parent)) {
      this.sink.report(DISCIPLINE_RULES.subagentUnknownParent, `SUBAGENT_STARTED names parentSubagentRunId ${JSON.stringify(parent)}, which was not announced in this run`, { event: index, path: '/parentSubagentRunId' });
    }
    if (this.activeSubagents.has(id)) {
      this.sink.report(DISCIPLINE_RULES.subagentAlreadyActive, `SUBAGENT_STARTED announces ${JSON.stringify(id)}, which is already active`, { event: index, path: '/subagentRunId' });
      return;
    }
    if (this.finishedSubagents.has(id)) {
      this.sink.report(DISCIPLINE_RULES.subagentReused, `SUBAGENT_STARTED reuses ${JSON.stringify(id)}, an invocation that already finished in this run`, { event: index, path: '/subagentRunId' });
    } else if (this.attributedBeforeAnnounce.has(id)) {
      this.sink.report(DISCIPLINE_RULES.subagentAnnouncedLate, `SUBAGENT_STARTED announces ${JSON.stringify(id)} after events were already attributed to it`, { event: index, path: '/subagentRunId' });
    }
    this.activeSubagents.add(id);
  }

  private subagentEnded(ev: Ev, index: number): void {
    const id = str(ev, 'subagentRunId');
    if (id === undefined) return;
    if (!this.activeSubagents.delete(id)) {
      this.sink.report(DISCIPLINE_RULES.subagentNotStarted, `${ev.type} for ${JSON.stringify(id)}, which is not an active announced invocation`, { event: index, path: '/subagentRunId' });
    }
    this.finishedSubagents.add(id);
  }
}
