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
import { describeOtherMac } from '../other-macs.js';
import { CheckFailure, CheckSkipped } from '../outcome.js';
import type { Delivery } from '../receiver.js';
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
      // The receiver keeps only deliveries whose signature verifies: none, where others came, may be a wrong signature or a forger's noise.
      if (deliveries.length === 0)
        throw context.receiver.absence({ expected: 'webhook deliveries to the kit during the run', got: 'none', request: "the kit's webhook receiver" });
      const wrong = deliveries.filter((delivery) => delivery.otherMac);
      if (wrong.length > 0) {
        const forms = new Map<string, number>();
        for (const delivery of wrong) forms.set(describeOtherMac(delivery.otherMac!), (forms.get(describeOtherMac(delivery.otherMac!)) ?? 0) + 1);
        throw new CheckFailure(
          [...forms].map(([form, count]) => ({
            expected: 'v1 as HMAC-SHA256 with the webhook secret',
            got: `${count} ${count === 1 ? 'delivery' : 'deliveries'} whose v1 is ${form} (only a holder of the secret can make it)`,
            request: "the kit's webhook receiver",
          })),
        );
      }
      const encodings = context.signatureEncoding ? [context.signatureEncoding] : SIGNATURE_ENCODINGS;
      const schemes = new Map<string, number>();
      let bodyOnly = false;
      for (const delivery of deliveries) {
        // Kept by the receiver, so it verifies: which form it takes is what the check reports.
        const check = specLevelSignature(delivery, secret, encodings);
        if (!check.ok) continue;
        const scheme = describeScheme([check.signedPayload], [check.encoding]);
        schemes.set(scheme, (schemes.get(scheme) ?? 0) + 1);
        bodyOnly ||= check.signedPayload === 'body';
      }
      const matched = [...schemes].map(([scheme, count]) => `${count} ${count === 1 ? 'delivery' : 'deliveries'} signed with ${scheme}`).join('; ');
      return bodyOnly
        ? `${matched}; a signature of the body alone does not bind the timestamp, so replay protection rests on dropping duplicate event ids`
        : matched;
    },
  },
};
