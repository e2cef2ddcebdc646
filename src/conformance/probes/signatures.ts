import {
  describeScheme,
  SIGNATURE_ENCODINGS,
  type SignatureCheck,
  type SignatureEncoding,
  signatureHeaderOf,
  SIGNED_PAYLOADS,
  verifySignature,
} from '../../webhooks/signature.js';
import type { KitContext } from '../context.js';
import { CheckFailure, CheckSkipped, Findings } from '../outcome.js';
import type { Delivery } from '../receiver.js';
import { deliveryLine } from './events.js';
import type { ProbeSet } from './types.js';

/**
 * A delivery's signature as level spec takes it: HMAC-SHA256 with the secret over `<t>.<raw body>`
 * or the raw body alone, in `encodings`, with no tolerance: the specification shows none of these.
 */
export function specLevelSignature(delivery: Delivery, secret: string, encodings: readonly SignatureEncoding[] = SIGNATURE_ENCODINGS): SignatureCheck {
  return verifySignature(signatureHeaderOf(delivery.headers)?.value, delivery.raw, {
    secrets: [secret],
    encodings,
    signedPayloads: SIGNED_PAYLOADS,
    toleranceSeconds: Number.POSITIVE_INFINITY,
  });
}

export const signatureProbes: ProbeSet = {
  probes: {},
  final: {
    'events.signature-valid': async (context: KitContext) => {
      const secret = context.webhookSecret;
      if (!secret) throw new CheckSkipped('needs --webhook-secret');
      if (!context.receiver) throw new CheckSkipped('needs --webhook-port');
      const { deliveries } = context.receiver;
      if (deliveries.length === 0)
        throw new CheckFailure([{ expected: 'webhook deliveries to the kit during the run', got: 'none', request: "the kit's webhook receiver" }]);
      const encodings = context.signatureEncoding ? [context.signatureEncoding] : SIGNATURE_ENCODINGS;
      const findings = new Findings();
      const schemes = new Map<string, number>();
      let bodyOnly = false;
      for (const delivery of deliveries) {
        const check = specLevelSignature(delivery, secret, encodings);
        if (check.ok) {
          const scheme = describeScheme([check.signedPayload], [check.encoding]);
          schemes.set(scheme, (schemes.get(scheme) ?? 0) + 1);
          bodyOnly ||= check.signedPayload === 'body';
        } else {
          findings.add({
            expected: `a v1 made with the webhook secret: ${describeScheme(SIGNED_PAYLOADS, encodings)}`,
            got: check.detail,
            request: deliveryLine(delivery),
          });
        }
      }
      findings.done();
      const matched = [...schemes].map(([scheme, count]) => `${count} ${count === 1 ? 'delivery' : 'deliveries'} signed with ${scheme}`).join('; ');
      return bodyOnly
        ? `${matched}; a signature of the body alone does not bind the timestamp, so replay protection rests on dropping duplicate event ids`
        : matched;
    },
  },
};
