/** Answer from this recording through the panel, in Firefox (test/e2e/override.ts). */
import { overrideTests } from './override.ts';

overrideTests('firefox');
