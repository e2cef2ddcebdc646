/**
 * The forms of signature svc takes, made here with node:crypto rather than with svc's own code, so
 * that a test of the listener or of `webhooks verify` does not check svc against itself.
 */
import { createHmac } from 'node:crypto';

export interface SignatureForm {
  name: string;
  encoding: 'hex' | 'base64';
  signedPayload: 'timestamped' | 'body';
  /** What `listen` and `verify` are told so that they take it. */
  args: string[];
  encode(digest: Buffer): string;
}

const hex = (digest: Buffer) => digest.toString('hex');
const BODY_ALONE = ['--signed-payload', 'body'];

export const SIGNATURE_FORMS: SignatureForm[] = [
  { name: 'lower-case hex over <t>.<body>', encoding: 'hex', signedPayload: 'timestamped', args: [], encode: hex },
  { name: 'upper-case hex over <t>.<body>', encoding: 'hex', signedPayload: 'timestamped', args: [], encode: (digest) => hex(digest).toUpperCase() },
  { name: 'base64 over <t>.<body>', encoding: 'base64', signedPayload: 'timestamped', args: [], encode: (digest) => digest.toString('base64') },
  {
    name: 'unpadded base64url over <t>.<body>',
    encoding: 'base64',
    signedPayload: 'timestamped',
    args: [],
    encode: (digest) => digest.toString('base64url'),
  },
  { name: 'hex over the body alone', encoding: 'hex', signedPayload: 'body', args: BODY_ALONE, encode: hex },
  { name: 'base64 over the body alone', encoding: 'base64', signedPayload: 'body', args: BODY_ALONE, encode: (digest) => digest.toString('base64') },
];

/** `t=<t>,v1=<signature>`: HMAC-SHA256 with `secret` in the given form. */
export function signIn(form: SignatureForm, secret: string, body: Uint8Array | string, t: number): string {
  const hmac = createHmac('sha256', secret);
  if (form.signedPayload === 'timestamped') hmac.update(`${t}.`);
  return `t=${t},v1=${form.encode(hmac.update(body).digest())}`;
}
