/** Edit and resend, resume and tool result through the panel, in Firefox (test/e2e/resend.ts). */
import { resendTests } from './resend.ts';

resendTests('firefox');
