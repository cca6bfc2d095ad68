/** Answer from this recording through the panel, in Chromium (test/e2e/override.ts). */
import { overrideTests } from './override.ts';

overrideTests('chrome');
