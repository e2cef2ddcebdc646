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
import { describeOtherMac } from '../../webhooks/other-macs.js';
import { CheckFailure, CheckSkipped, type Finding, SetupError } from '../outcome.js';
import type { Delivery } from '../receiver.js';
import type { V1Reading } from '../signature-readings.js';
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

const counted = (count: number) => `${count.toLocaleString('en')} ${count === 1 ? 'delivery' : 'deliveries'}`;

function tally(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** How many of a bounded list a message shows; the rest are counted. */
const SHOWN = 5;

function listed(items: string[]): string {
  const more = items.length - SHOWN;
  return more > 0 ? `${items.slice(0, SHOWN).join('; ')}; and ${more} more` : items.join('; ');
}

const V1_FORMS = `no HMAC-SHA256 of the webhook secret (${describeScheme(SIGNED_PAYLOADS, SIGNATURE_ENCODINGS)}) nor an HMAC of it under another hash`;

/**
 * `events.signature-valid` over the kept deliveries (each authenticated by a v1 of one of its
 * headers): every v1 of every signature header is judged. A v1 that is an HMAC of the secret under
 * another hash fails the check wherever it is, and so does a header none of whose v1 values the
 * kit can attribute to the secret (a receiver that reads that name refuses the delivery). A v1
 * beside one of the same header that verifies may be a rotation's other secret, which the kit does
 * not hold: the check is then inconclusive, naming where it is. Returns what the check says when it passes.
 */
export function judgeSignatures(deliveries: readonly Delivery[], encodings: readonly SignatureEncoding[] = SIGNATURE_ENCODINGS): string {
  const otherHashes = new Map<string, number>();
  const headersWithout = new Map<string, number>();
  const unjudged = new Map<string, number>();
  const schemes = new Map<string, number>();
  let bodyOnly = false;
  let unpinned = false;
  let unknownSecret = false;
  for (const delivery of deliveries) {
    const values = delivery.signatures.filter((reading): reading is V1Reading => reading.kind !== 'unreadable');
    const signedWith: string[] = [];
    const signedIn: string[] = [];
    for (const header of new Set(values.map((value) => value.header))) {
      const own = values.filter((value) => value.header === header);
      if (own.every((value) => value.kind === 'unattributable')) {
        const which = own.length === 1 ? 'v1 #1 is' : `v1 #1 to #${own.length} are each`;
        tally(
          headersWithout,
          `${header} carries no v1 of the secret (${which} ${V1_FORMS}) while the delivery's other signature header is made with the secret`,
        );
        continue;
      }
      for (const value of own) {
        const place = `${value.header} v1 #${value.position}`;
        if (value.kind === 'other_mac') tally(otherHashes, `${place} is ${describeOtherMac(value.mac)}`);
        else if (value.kind === 'unattributable') {
          tally(unjudged, `${place} is ${V1_FORMS}, beside a v1 of the same header that verifies`);
          unknownSecret = true;
        } else if (!encodings.includes(value.encoding)) {
          tally(
            unjudged,
            `${place} is HMAC-SHA256 with the webhook secret in ${value.encoding}, which --signature-encoding ${encodings.join(' or ')} leaves out`,
          );
          unpinned = true;
        } else {
          const scheme = describeScheme([value.signedPayload], [value.encoding]);
          if (!signedWith.includes(scheme)) signedWith.push(scheme);
          if (!signedIn.includes(header)) signedIn.push(header);
          bodyOnly ||= value.signedPayload === 'body';
        }
      }
    }
    if (signedWith.length > 0) tally(schemes, `${signedWith.join(' and ')}${signedIn.length > 1 ? `, in ${signedIn.join(' and ')}` : ''}`);
  }
  const findings: Finding[] = [
    ...[...otherHashes].map(([what, count]) => ({
      expected: 'every v1 of every signature header as HMAC-SHA256 with the webhook secret',
      got: `${counted(count)} whose ${what} (only a holder of the secret can make it)`,
      request: "the kit's webhook receiver",
    })),
    ...[...headersWithout].map(([what, count]) => ({
      expected: 'a v1 that verifies with the webhook secret in each signature header (a receiver may read either name)',
      got: `${counted(count)} whose ${what}: a receiver that reads that header refuses such a delivery`,
      request: "the kit's webhook receiver",
    })),
  ];
  if (findings.length > 0) throw new CheckFailure(findings);
  if (unjudged.size > 0)
    throw new SetupError(
      `the kit cannot judge every v1: ${listed([...unjudged].map(([what, count]) => `${counted(count)} whose ${what}`))}${unknownSecret ? ' (made with a secret the kit was not given, as while the webhook secret is rotated, or wrong: the kit cannot tell)' : ''}`,
      `run the kit when the implementation signs with the secret of --webhook-secret alone${unpinned ? ', or without --signature-encoding' : ''}`,
    );
  const matched = [...schemes].map(([scheme, count]) => `${counted(count)} signed with ${scheme}`).join('; ');
  return bodyOnly
    ? `${matched}; a signature of the body alone does not bind the timestamp, so replay protection rests on dropping duplicate event ids`
    : matched;
}

export const signatureProbes: ProbeSet = {
  probes: {},
  final: {
    'events.signature-valid': async (context: KitContext) => {
      if (!context.webhookSecret) throw new CheckSkipped('needs --webhook-secret');
      if (!context.receiver) throw new CheckSkipped('needs --webhook-port');
      const { deliveries } = context.receiver;
      // The receiver keeps only deliveries whose signature verifies: none, where others came, may be a wrong signature or a forger's noise.
      if (deliveries.length === 0)
        throw context.receiver.absence({ expected: 'webhook deliveries to the kit during the run', got: 'none', request: "the kit's webhook receiver" });
      return judgeSignatures(deliveries, context.signatureEncoding ? [context.signatureEncoding] : SIGNATURE_ENCODINGS);
    },
  },
};
