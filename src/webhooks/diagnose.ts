import { redactKey } from '../core/redaction.js';
import { EVENT_SCHEMAS, isListedEventType, readEnvelope, schemaNotes } from './envelope.js';
import {
  decodeV1,
  DEFAULT_SIGNED_PAYLOADS,
  DEFAULT_TOLERANCE_SECONDS,
  describeScheme,
  type ParsedSignature,
  parseSignatureHeader,
  sameDigest,
  SIGNATURE_ENCODINGS,
  type SignatureEncoding,
  signatureDigest,
  SIGNED_PAYLOADS,
  type SignedPayload,
} from './signature.js';
import type { RejectionReason } from './verify.js';
import { describeOtherMac, OtherMacs } from './other-macs.js';

type StepName = 'header' | 'timestamp' | 'signature' | 'body' | 'envelope' | 'schema';

interface DiagnosisStep {
  step: StepName;
  /** noted: differs from openapi.yaml's event schemas, which is no refusal without --strict-schema. */
  status: 'ok' | 'noted' | 'failed' | 'skipped';
  reason?: RejectionReason;
  detail: string;
  /** What probably went wrong and what to do, when svc can tell. */
  hint?: string;
}

export interface Diagnosis {
  ok: boolean;
  /** The reason a receiver gives: that of the first failed step, in the order a receiver checks them. */
  reason: RejectionReason | null;
  /** Which secret (0-based, in the order given) and which v1 entry matched, in which encoding, over what. */
  matched: { secret: number; v1: number; encoding: SignatureEncoding; signed_payload: SignedPayload } | null;
  steps: DiagnosisStep[];
  /** How the body differs from openapi.yaml's event schemas and from the Service-Event header. */
  schemaNotes: string[];
}

export interface DiagnoseInput {
  /** The header's value; a leading `Service-Signature:` or `X-Service-Signature:` is tolerated. */
  header: string | undefined;
  body: Uint8Array;
  secrets: readonly string[];
  toleranceSeconds?: number;
  now?: number;
  serviceEvent?: string;
  /** Refuse a body that differs from openapi.yaml's event schemas, as `listen --strict-schema` does. */
  strictSchema?: boolean;
  /** The encodings of v1 and what a signature may be taken over, as `listen` is told (defaults: verifySignature's). */
  encodings?: readonly SignatureEncoding[];
  signedPayloads?: readonly SignedPayload[];
}

/** What the receiver being diagnosed takes. */
interface Accepted {
  encodings: readonly SignatureEncoding[];
  signedPayloads: readonly SignedPayload[];
}

const HEADER_NAME = /^\s*(?:x-)?service-signature\s*:\s*/i;

function ago(seconds: number): string {
  const units: Array<[number, string]> = [
    [86_400, 'd'],
    [3600, 'h'],
    [60, 'min'],
  ];
  for (const [size, unit] of units) {
    if (seconds >= size * 2) return `${Math.floor(seconds / size)} ${unit} (${seconds.toLocaleString('en')} s)`;
  }
  return `${seconds} s`;
}

function headerStep(value: string | undefined): { step: DiagnosisStep; parsed?: ParsedSignature } {
  if (value === undefined || value.trim() === '') {
    return {
      step: {
        step: 'header',
        status: 'failed',
        reason: 'missing_header',
        detail: 'no signature header value was given',
        hint: 'pass the value of the Service-Signature (or X-Service-Signature) header with --header',
      },
    };
  }
  const parsed = parseSignatureHeader(value.replace(HEADER_NAME, ''));
  if ('reason' in parsed) {
    let hint: string | undefined;
    if (/^\s*["']/.test(value)) hint = 'the value is quoted: pass it without the quotes';
    else if (/t=\d{13}\b/.test(value)) hint = 't= looks like milliseconds; part 6 signs unix seconds';
    else if (parsed.detail.includes('twice')) hint = 'two signature headers were probably joined into one; keep a single Service-Signature header';
    else if (parsed.reason === 'no_v1') hint = 'only v1 signatures (HMAC-SHA256) are read; the header must carry at least one v1=';
    return { step: { step: 'header', status: 'failed', reason: parsed.reason, detail: parsed.detail, ...(hint && { hint }) } };
  }
  const odd = parsed.signatures.filter((signature) => decodeV1(signature) === undefined);
  const step: DiagnosisStep = {
    step: 'header',
    status: 'ok',
    detail: `t=${parsed.timestamp} with ${parsed.signatures.length} v1 ${parsed.signatures.length === 1 ? 'value' : 'values'}`,
  };
  if (odd.length > 0)
    step.hint = `${odd.length === 1 ? 'a v1 value is' : `${odd.length} v1 values are`} neither 64 hex digits nor 43 base64 characters (44 padded), the lengths of an HMAC-SHA256`;
  return { step, parsed };
}

function timestampStep(parsed: ParsedSignature, tolerance: number, now: number): DiagnosisStep {
  const skew = now - parsed.timestamp;
  const when = skew >= 0 ? `${ago(skew)} ago` : `${ago(-skew)} in the future`;
  if (Math.abs(skew) <= tolerance) return { step: 'timestamp', status: 'ok', detail: `signed ${when}, within the ${tolerance} s tolerance` };
  const beyond = `${(Math.abs(skew) - tolerance).toLocaleString('en')} s beyond the ${tolerance} s tolerance`;
  if (skew > 0) {
    return {
      step: 'timestamp',
      status: 'failed',
      reason: 'timestamp_too_old',
      detail: `signed ${when}, ${beyond}`,
      hint:
        skew > 3600
          ? 'a captured delivery ages: check it as of when it arrived with --at, or make a fresh header with `svc webhooks sign`'
          : "the sender's clock is behind this machine's, or the delivery was held up; check both clocks (NTP)",
    };
  }
  return {
    step: 'timestamp',
    status: 'failed',
    reason: 'timestamp_in_future',
    detail: `signed ${when}, ${beyond}`,
    hint: "the sender's clock is ahead of this machine's (or this machine's is behind); check both clocks (NTP)",
  };
}

interface Variant<T> {
  value: T;
  /** What differs from the delivery as given; empty for the delivery itself. */
  change: string;
}

function secretVariants(secrets: readonly string[]): Array<Variant<string>> {
  const variants: Array<Variant<string>> = [];
  secrets.forEach((secret, index) => {
    const name = secrets.length === 1 ? 'the secret' : `secret #${index + 1}`;
    if (secret.trim() !== secret) variants.push({ value: secret.trim(), change: `${name} without the white space around it (your copy of it has some)` });
    variants.push({ value: `${secret}\n`, change: `${name} followed by a line break (the sender's copy has one: read from a file with a final newline?)` });
    if (secret.startsWith('whsec_'))
      variants.push({ value: secret.slice('whsec_'.length), change: `${name} without its whsec_ prefix (the sender drops it; the whole secret is the key)` });
  });
  return variants;
}

function bodyVariants(body: Uint8Array): Array<Variant<Uint8Array>> {
  const text = Buffer.from(body).toString('utf8');
  const variants: Array<Variant<string>> = [];
  if (text.includes('\r\n'))
    variants.push({
      value: text.replace(/\r\n/g, '\n'),
      change: 'the body with LF line endings: the copy checked here has CRLF (an editor or git autocrlf changed them)',
    });
  else if (text.includes('\n'))
    variants.push({
      value: text.replace(/\n/g, '\r\n'),
      change: 'the body with CRLF line endings: the copy checked here has LF (an editor or git changed them)',
    });
  if (/\r?\n$/.test(text))
    variants.push({
      value: text.replace(/(\r?\n)+$/, ''),
      change: 'the body without its final line break (the file was saved with one that the delivery did not have)',
    });
  else variants.push({ value: `${text}\n`, change: 'the body with a final line break (the delivery had one that the copy checked here lost)' });
  try {
    const value: unknown = JSON.parse(text);
    for (const [indent, name] of [
      [undefined, 'compact JSON'],
      [2, 'JSON indented by 2 spaces'],
      [4, 'JSON indented by 4 spaces'],
      ['\t', 'JSON indented by tabs'],
    ] as const) {
      const serialised = JSON.stringify(value, null, indent);
      if (serialised !== text) {
        const change = `the body re-serialised as ${name}: the JSON is equal but the bytes differ, so something parsed and re-wrote it; verify the raw bytes as received`;
        variants.push({ value: serialised, change }, { value: `${serialised}\n`, change });
      }
    }
  } catch {
    // Not JSON: only the byte-level variants apply.
  }
  return variants.map((variant) => ({ value: Buffer.from(variant.value, 'utf8'), change: variant.change }));
}

/** What to say of a signature over a payload the receiver does not take. */
const PAYLOAD_CHANGES: Record<SignedPayload, string> = {
  timestamped: '`<t>.<body>` signed, not the body alone (the sender signs the timestamp too: leave out --signed-payload body)',
  body: 'the body alone signed, not `<t>.<body>` (the sender leaves out the timestamp: --signed-payload body takes it, and then only dropping event ids already received keeps a replay from being taken as new)',
};

/** Looks for the one change to the delivery, or to what the receiver takes, that makes a v1 value match, to say what went wrong. */
function explainMismatch(parsed: ParsedSignature, body: Uint8Array, secrets: readonly string[], accepted: Accepted): string | undefined {
  const candidateSecrets = [...secrets.map((value) => ({ value, change: '' })), ...secretVariants(secrets)];
  const candidateBodies = [{ value: body, change: '' }, ...bodyVariants(body)];
  const given = parsed.signatures.flatMap((signature) => decodeV1(signature) ?? []);
  for (const signedPayload of SIGNED_PAYLOADS) {
    for (const secret of candidateSecrets) {
      for (const candidate of candidateBodies) {
        const digest = signatureDigest(secret.value, parsed.timestamp, candidate.value, signedPayload);
        const match = given.find((item) => sameDigest(digest, item.digest));
        if (!match) continue;
        const payload = accepted.signedPayloads.includes(signedPayload) ? '' : PAYLOAD_CHANGES[signedPayload];
        const changes = [payload, secret.change, candidate.change].filter(Boolean);
        const described = changes.length > 0 ? ` of ${changes.join(', and ')}` : '';
        const excluded = accepted.encodings.includes(match.encoding)
          ? ''
          : `, in ${match.encoding}, which --signature-encoding ${accepted.encodings.join(' or ')} leaves out`;
        return `a v1 value is the signature${described}${excluded}`;
      }
    }
  }
  return undefined;
}

function signatureStep(
  parsed: ParsedSignature,
  body: Uint8Array,
  secrets: readonly string[],
  accepted: Accepted,
  otherMac: string | undefined,
): { step: DiagnosisStep; matched: Diagnosis['matched'] } {
  const given = parsed.signatures.map((signature) => decodeV1(signature, accepted.encodings));
  for (const [secretIndex, secret] of secrets.entries()) {
    for (const signedPayload of accepted.signedPayloads) {
      const expected = signatureDigest(secret, parsed.timestamp, body, signedPayload);
      const v1 = given.findIndex((item) => item !== undefined && sameDigest(expected, item.digest));
      if (v1 < 0) continue;
      const { encoding } = given[v1]!;
      const which = secrets.length === 1 ? `the secret ${redactKey(secret)}` : `secret #${secretIndex + 1} of ${secrets.length} (${redactKey(secret)})`;
      const entry = parsed.signatures.length === 1 ? 'the v1 value' : `v1 value #${v1 + 1} of ${parsed.signatures.length}`;
      const unbound =
        signedPayload === 'body' ? '; it does not bind t, so only dropping event ids already received keeps a replay from being taken as new' : '';
      return {
        step: { step: 'signature', status: 'ok', detail: `${entry} matches ${which}: ${describeScheme([signedPayload], [encoding])}${unbound}` },
        matched: { secret: secretIndex, v1, encoding, signed_payload: signedPayload },
      };
    }
  }
  const explanation = explainMismatch(parsed, body, secrets, accepted);
  return {
    step: {
      step: 'signature',
      status: 'failed',
      reason: 'signature_mismatch',
      detail: `no v1 value matches the body signed with ${secrets.length === 1 ? 'the secret' : `any of the ${secrets.length} secrets`} (${describeScheme(accepted.signedPayloads, accepted.encodings)})`,
      hint:
        explanation ??
        otherMac ??
        'the secret is not the one the sender uses, or the body is not byte for byte what was sent (svc tried line endings, a final newline, JSON re-serialisation, white space in the secret, both encodings of v1 and the body signed alone)',
    },
    matched: null,
  };
}

/**
 * A v1 value that is an HMAC keyed with one of the secrets under another hash than SHA-256, named as
 * the contract kit names it: only a holder of the secret makes one, so the sender signs with the wrong hash.
 */
function otherMacOf(parsed: ParsedSignature, body: Uint8Array, secrets: readonly string[]): string | undefined {
  for (const [secretIndex, secret] of secrets.entries()) {
    const macs = new OtherMacs(secret, parsed.timestamp, Buffer.from(body));
    for (const [index, value] of parsed.signatures.entries()) {
      const mac = macs.of(value);
      if (!mac) continue;
      const entry = parsed.signatures.length === 1 ? 'the v1 value' : `v1 value #${index + 1}`;
      const which = secrets.length === 1 ? '' : ` (secret #${secretIndex + 1})`;
      return `${entry} is ${describeOtherMac(mac)}${which}, not HMAC-SHA256: the sender signs with another hash`;
    }
  }
  return undefined;
}

const ENVELOPE_RULE = 'part 6: an event is a JSON object with an id starting with evt_, a type and a data object';

/** The body, the envelope part 6 states, and how it differs from openapi.yaml's schemas. */
function bodySteps(input: DiagnoseInput): { steps: DiagnosisStep[]; notes: string[] } {
  const reading = readEnvelope(input.body);
  const bodyOk: DiagnosisStep = { step: 'body', status: 'ok', detail: `UTF-8 JSON, ${input.body.length} bytes` };
  if (!reading.ok && reading.reason === 'body_not_json') {
    return {
      steps: [
        { step: 'body', status: 'failed', reason: 'body_not_json', detail: reading.detail },
        { step: 'envelope', status: 'skipped', detail: 'the body is not JSON' },
        { step: 'schema', status: 'skipped', detail: 'the body is not JSON' },
      ],
      notes: [],
    };
  }
  if (!reading.ok) {
    return {
      steps: [
        bodyOk,
        { step: 'envelope', status: 'failed', reason: 'envelope_invalid', detail: reading.detail, hint: ENVELOPE_RULE },
        { step: 'schema', status: 'skipped', detail: 'the envelope is not an event' },
      ],
      notes: [],
    };
  }
  const { type, id } = reading.event;
  const envelope: DiagnosisStep = { step: 'envelope', status: 'ok', detail: `a ${type} event (${id}), as part 6 states the envelope` };
  const notes = schemaNotes(reading.envelope, input.serviceEvent);
  const differs = `differs from openapi.yaml in ${notes.length} ${notes.length === 1 ? 'way' : 'ways'}`;
  let schema: DiagnosisStep;
  if (notes.length === 0)
    schema = { step: 'schema', status: 'ok', detail: `matches openapi.yaml's ${isListedEventType(type) ? EVENT_SCHEMAS[type] : 'EventEnvelope'}` };
  else if (input.strictSchema) schema = { step: 'schema', status: 'failed', reason: 'envelope_invalid', detail: `${differs}, refused with --strict-schema` };
  else schema = { step: 'schema', status: 'noted', detail: `${differs}: notes, not a refusal (--strict-schema refuses)` };
  return { steps: [bodyOk, envelope, schema], notes };
}

/**
 * Checks a captured delivery step by step, as a receiver would, and says exactly which step fails
 * and why: every step is run (the signature is checked even when the timestamp is stale), so one
 * run tells everything that is wrong.
 */
export function diagnoseDelivery(input: DiagnoseInput): Diagnosis {
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = input.now ?? Math.floor(Date.now() / 1000);
  const steps: DiagnosisStep[] = [];
  let matched: Diagnosis['matched'] = null;

  const header = headerStep(input.header);
  steps.push(header.step);
  if (header.parsed) {
    steps.push(timestampStep(header.parsed, tolerance, now));
    const accepted = { encodings: input.encodings ?? SIGNATURE_ENCODINGS, signedPayloads: input.signedPayloads ?? DEFAULT_SIGNED_PAYLOADS };
    const otherMac = otherMacOf(header.parsed, input.body, input.secrets);
    // A value of another hash's length is named for what it is, not for its length.
    if (otherMac && header.step.hint) header.step.hint = otherMac;
    const signature = signatureStep(header.parsed, input.body, input.secrets, accepted, otherMac);
    steps.push(signature.step);
    matched = signature.matched;
  } else {
    steps.push(
      { step: 'timestamp', status: 'skipped', detail: 'the header could not be read' },
      { step: 'signature', status: 'skipped', detail: 'the header could not be read' },
    );
  }

  const body = bodySteps(input);
  steps.push(...body.steps);

  const failed = steps.find((step) => step.status === 'failed');
  return { ok: failed === undefined, reason: failed?.reason ?? null, matched, steps, schemaNotes: body.notes };
}
