import { defineRules, type ProtocolVersion } from '../rules/index.ts';
import type { FindingSink } from './sink.ts';
import type { NegotiationVerdict } from './types.ts';
import { negotiate, parseVersion } from './version.ts';

const SPEC = 'basic/versioning#version-negotiation';

export const VERSION_RULES = defineRules({
  consumerUndeclared: {
    id: 'version/consumer-undeclared',
    category: 'version',
    severity: 'warning',
    fatal: false,
    spec: 'basic/run-input#protocolversion',
    title: 'A consumer implementing this version must declare it on RunAgentInput.protocolVersion',
  },
  consumerUninterpretable: {
    id: 'version/consumer-uninterpretable',
    category: 'version',
    severity: 'warning',
    fatal: false,
    spec: SPEC,
    title: 'The input declares a protocolVersion that is not MAJOR.MINOR',
  },
  consumerUnknown: {
    id: 'version/consumer-newer-than-tool',
    category: 'version',
    severity: 'info',
    fatal: false,
    spec: SPEC,
    title: 'The input declares a version newer than this tool knows; judged as the newest it knows',
  },
  producerUndeclared: {
    id: 'version/producer-undeclared',
    category: 'version',
    // Absence is meaningful, not a defect the consumer can act on: it identifies a pre-versioning peer.
    severity: 'info',
    fatal: false,
    spec: SPEC,
    title: 'RUN_STARTED carries no protocolVersion: a producer from before the protocol carried a version',
  },
  producerNewer: {
    id: 'version/producer-newer',
    category: 'version',
    severity: 'warning',
    fatal: false,
    spec: SPEC,
    title: 'The producer declares a newer version than the consumer: proceed under the processing model, and warn',
  },
  producerOlder: {
    id: 'version/producer-older',
    category: 'version',
    severity: 'info',
    fatal: false,
    spec: 'basic/versioning#downgrading',
    title: 'The producer declares an older version than the consumer',
  },
  producerUninterpretable: {
    id: 'version/producer-uninterpretable',
    category: 'version',
    severity: 'warning',
    fatal: false,
    spec: SPEC,
    title: 'RUN_STARTED declares a protocolVersion the consumer cannot interpret: handled like a newer one',
  },
});

/** What the consumer side of the negotiation is judged against: its declaration, else the version judged as. */
export function consumerDeclaration(input: Record<string, unknown> | null): string | null {
  return input && typeof input.protocolVersion === 'string' ? input.protocolVersion : null;
}

/** One RUN_STARTED's declaration against the consumer's; reports what the verdict obliges, unless `sink` is null. */
export function judgeProducer(
  sink: FindingSink | null,
  consumer: string | null,
  judgedAs: ProtocolVersion,
  producer: unknown,
  index: number,
): NegotiationVerdict {
  const against = consumer ?? judgedAs;
  const verdict = negotiate(against, producer);
  const shown = JSON.stringify(producer);
  const where = { event: index, path: '/protocolVersion' };
  if (!sink) return verdict;
  switch (verdict) {
    case 'undeclared':
      sink.report(VERSION_RULES.producerUndeclared, `RUN_STARTED declares no protocolVersion: a producer from before the protocol carried a version (a ${judgedAs} producer must declare the version it speaks)`, where);
      break;
    case 'uninterpretable':
      if (consumer !== null && parseVersion(consumer) === null) break; // the consumer side is what cannot be read; reported on the input
      sink.report(VERSION_RULES.producerUninterpretable, `The consumer cannot interpret RUN_STARTED protocolVersion ${shown} (expected MAJOR.MINOR): proceeding as though it were newer`, where);
      break;
    case 'producer-newer':
      sink.report(VERSION_RULES.producerNewer, `The producer speaks protocolVersion ${shown}, newer than the consumer's ${JSON.stringify(against)}: the consumer proceeds, stripping what ${against} does not describe`, where);
      break;
    case 'producer-older':
      sink.report(VERSION_RULES.producerOlder, `The producer speaks protocolVersion ${shown}, older than the consumer's ${JSON.stringify(against)}`, where);
      break;
    case 'same':
      break;
  }
  return verdict;
}
