/**
 * What every lab page exposes to the test as `window.lab`: the session's steps and the events the page's agent received.
 * Each lab types its events with its own @ag-ui/client, which differ between labs.
 */
export type Step = 'connect' | 'hello' | 'weather' | 'remember' | 'stop';

export interface LabPage {
  steps: Record<Step, () => Promise<void>>;
  /** Every event the page's agent received since the page loaded, through the client's subscriber. */
  events: { type: string }[];
}

declare global {
  interface Window {
    lab?: LabPage;
  }
}

export function exposeLab(lab: LabPage): void {
  window.lab = lab;
}
