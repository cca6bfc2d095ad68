import { defineRules } from '../rules/index.ts';

/** What the exchange's HTTP envelope itself says, beyond what the wire readers judge. */
export const HTTP_RULES = defineRules({
  httpStatus: {
    id: 'transport/http-error-status',
    category: 'transport',
    severity: 'error',
    fatal: true,
    spec: 'basic/run-input#error-handling',
    title: 'The agent answered with an error status: the run never started',
  },
});
