import { Flags } from '@oclif/core';
import { ExitCode, SvcError } from '../../core/errors.js';
import { signatureEncodingFlag, signedPayloadFlag, strictSchemaFlag, toleranceFlag, webhookSecretFlag } from '../../flags/webhook.js';
import { readPayload } from '../../ui/stdin.js';
import { terminalText } from '../../ui/terminal-text.js';
import { WebhookCommand } from '../../cli/webhook-command.js';
import { type Diagnosis, diagnoseDelivery } from '../../webhooks/diagnose.js';
import { helpText } from '../../cli/help-text.js';

/** The diagnosis as --json prints it. */
type DiagnosisJson = Omit<Diagnosis, 'schemaNotes'> & { schema_notes: string[] };

function unixSeconds(text: string): number {
  const seconds = /^\d+$/.test(text) ? Number(text) : Date.parse(text) / 1000;
  if (!Number.isFinite(seconds)) throw new Error(`${text} is neither unix seconds nor an ISO 8601 timestamp`);
  return Math.floor(seconds);
}

/** What `--json` prints. */
export type JsonResult = DiagnosisJson;

export default class WebhooksVerify extends WebhookCommand<JsonResult> {
  static override summary = 'Check a captured delivery offline and say exactly which step fails';
  static override description = helpText`
    Checks the signature header against the body's raw bytes as svc webhooks listen does (HMAC-SHA256 over
    "<t>.<body>", v1 in hex or base64; --signature-encoding and --signed-payload as for listen), then the envelope
    part 6 states (a UTF-8 JSON object with an id starting with evt_, a type and a data object), then how the body
    differs from openapi.yaml's event schemas: schema notes, which do not make a delivery invalid unless
    --strict-schema. Every step is reported, with a diagnosis where svc can tell what went wrong: a header it
    cannot read, clock skew (direction and size), which of several secrets matched and in which encoding, a body
    that was re-serialised or had its line endings changed, white space in the secret, a signature of the body
    alone.

    Exit code 0 when the delivery verifies (schema notes or not), 16 when it does not.
  `;

  static override examples = [
    {
      description: "Check a captured delivery's signature against its body",
      command: '<%= config.bin %> webhooks verify --header "t=1767225600,v1=5257a8…" --payload-file body.json --at 2026-01-01T00:00:00Z',
    },
    'pbpaste | <%= config.bin %> webhooks verify --header "$SIG" --at 2026-01-01T00:00:00Z',
  ];

  static override flags = {
    secret: webhookSecretFlag,
    tolerance: toleranceFlag,
    header: Flags.string({ description: 'Value of the Service-Signature (or X-Service-Signature) header, t=…,v1=…' }),
    'payload-file': Flags.string({ description: 'File holding the body exactly as received (default: stdin)' }),
    'event-type': Flags.string({ description: "Value of the Service-Event header; another kind than the body's type is a schema note" }),
    'strict-schema': strictSchemaFlag,
    'signature-encoding': signatureEncodingFlag,
    'signed-payload': signedPayloadFlag,
    at: Flags.string({ description: 'Check the timestamp as of this time (unix seconds or ISO 8601), for a delivery captured earlier (default: now)' }),
  };

  public async run(): Promise<JsonResult> {
    const { flags } = await this.parse(WebhooksVerify);
    const secrets = await this.webhookSecrets(flags.secret, flags.profile);
    const body = await readPayload(
      this.io,
      flags['payload-file'],
      () => new SvcError('usage', 'missing_payload', 'no body to verify', 'give --payload-file, or pipe the body exactly as received to stdin'),
    );
    let now: number | undefined;
    try {
      now = flags.at === undefined ? undefined : unixSeconds(flags.at);
    } catch (error) {
      throw new SvcError('usage', 'invalid_time', (error as Error).message, 'give --at as unix seconds (1767225600) or ISO 8601 (2026-01-01T00:00:00Z)');
    }
    const { schemaNotes, ...diagnosis } = diagnoseDelivery({
      header: flags.header,
      body,
      secrets,
      toleranceSeconds: flags.tolerance,
      now,
      serviceEvent: flags['event-type'],
      strictSchema: flags['strict-schema'],
      encodings: flags['signature-encoding'] && [flags['signature-encoding']],
      signedPayloads: [flags['signed-payload']],
    });
    const width = Math.max(...diagnosis.steps.map((step) => step.step.length));
    const indent = ' '.repeat(width + 10);
    // The details quote the delivery's header and body: escaped.
    for (const step of diagnosis.steps) {
      this.log(terminalText(`${step.step.padEnd(width)}  ${step.status.padEnd(7)} ${step.detail}${step.reason ? ` [${step.reason}]` : ''}`));
      if (step.hint) this.log(terminalText(`${indent}→ ${step.hint}`));
      if (step.step === 'schema') for (const note of schemaNotes) this.log(terminalText(`${indent}- ${note}`));
    }
    const noted = schemaNotes.length > 0 ? `, with ${schemaNotes.length} schema ${schemaNotes.length === 1 ? 'note' : 'notes'}` : '';
    this.log(diagnosis.ok ? `valid${noted}` : `invalid: ${diagnosis.reason}`);
    if (!diagnosis.ok) this.exitCode = ExitCode.verificationFailed;
    return { ...diagnosis, schema_notes: schemaNotes };
  }
}
