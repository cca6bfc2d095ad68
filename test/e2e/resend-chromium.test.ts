/** Edit and resend, resume and tool result through the panel, in Chromium (test/e2e/resend.ts). */
import { resendTests } from './resend.ts';

resendTests('chrome');
