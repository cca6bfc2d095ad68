/** The timing of live streams on a known schedule, captured in Firefox (test/e2e/timing-live.ts). */
import { timingLiveTests } from './timing-live.ts';

timingLiveTests('firefox');
