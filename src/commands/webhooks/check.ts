import { Args, Flags } from '@oclif/core';
import type { EventType } from '../../api/types.js';
import { ExitCode } from '../../errors.js';
import { caCertFlag, secretFlag, WebhookCommand } from '../../webhook-command.js';
import { EVENT_TYPES } from '../../webhooks/envelope.js';
import { closePosting } from '../../webhooks/forward.js';
import { checkSubscriber, type Verdict } from '../../webhooks/subscriber-check.js';

export default class WebhooksCheck extends WebhookCommand {
  static override summary = 'Grade a subscriber endpoint the way the service will treat it';
  static override description = `Sends real deliveries and checks that the endpoint answers a valid event with a 2xx within 10 s (also when the header carries several v1 values, as during a secret rotation), refuses with a 4xx an event signed with another secret, one without a signature, and ones signed 600 s in the past or the future, and acknowledges again a retry of an event it accepted. One line per verdict.
The accepted events are realistic samples with fresh ids: point it at a test endpoint, not at production.
Exit code 0 when every check passes, 16 otherwise.`;

  static override examples = ['<%= config.bin %> webhooks check http://127.0.0.1:3000/hooks', '<%= config.bin %> webhooks check https://staging.example.com/hooks --json'];

  static override args = {
    url: Args.string({ description: 'URL of the subscriber endpoint', required: true }),
  };

  static override flags = {
    secret: secretFlag,
    'event-type': Flags.string({ description: 'Kind of the sample events', options: EVENT_TYPES, default: 'report.completed' }),
    'ca-cert': caCertFlag,
  };

  public async run(): Promise<{ url: string; passed: boolean; verdicts: Verdict[] }> {
    const { args, flags } = await this.parse(WebhooksCheck);
    const secrets = this.webhookSecrets(flags.secret);
    this.warnOfWhitespace(secrets);
    this.trustReceiverCa(flags['ca-cert']);
    let verdicts: Verdict[];
    try {
      verdicts = await checkSubscriber(args.url, {
        secrets,
        eventType: flags['event-type'] as EventType,
        onVerdict: (verdict) => this.log(`${verdict.passed === null ? 'SKIP' : verdict.passed ? 'PASS' : 'FAIL'}  ${verdict.check.padEnd(26)} ${verdict.detail}`),
      });
    } finally {
      await closePosting();
    }
    const passed = verdicts.every((verdict) => verdict.passed === true);
    const failed = verdicts.filter((verdict) => verdict.passed !== true).length;
    this.note(passed ? `${args.url} passes all ${verdicts.length} checks` : `${args.url} fails ${failed} of ${verdicts.length} checks`);
    if (!passed) process.exitCode = ExitCode.verificationFailed;
    return { url: args.url, passed, verdicts };
  }
}
