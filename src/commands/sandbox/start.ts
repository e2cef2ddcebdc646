import { Flags } from '@oclif/core';
import { redactKey } from '../../core/redaction.js';
import { SandboxCommand } from '../../cli/sandbox-command.js';
import { SANDBOX_PROFILE } from '../../config/config-file.js';
import { sandboxProfileName, writeSandboxProfile } from '../../sandbox/profile.js';
import type { Plan } from '../../sandbox/rate-limit.js';
import { SIGNATURE_ENCODINGS } from '../../webhooks/signature.js';
import { startSandbox } from '../../sandbox/server.js';
import { certificateNames, type ListenAddress, listenAddress } from '../../sandbox/listen-address.js';
import { renderTable } from '../../ui/table.js';
import { helpText } from '../../cli/help-text.js';
import { SvcError } from '../../core/errors.js';

/** What `--json` writes: one line when the sandbox is ready. */
export interface JsonLine {
  event: 'ready';
  /** How a client on this machine reaches it; the profile's base URL. */
  url: string;
  /** The address it listens on (--host). */
  host: string;
  port: number;
  plan: string;
  data_dir: string;
  ca_cert: string;
  profile: string;
  first_start: boolean;
  webhook_urls: string[];
}

export default class SandboxStart extends SandboxCommand<void, JsonLine> {
  static override summary = 'Run the embedded sandbox: the whole API over HTTPS on loopback, until Ctrl-C';
  static override description = helpText`
    State lives in SQLite in the data directory: stopping and starting loses nothing, webhook deliveries still due
    included. On first start the sandbox makes two workspaces and their keys (test, read-only, IP-locked, admin,
    and a second workspace's test and admin keys) and a self-signed certificate. Every start writes the data
    directory's profile (base URL, test key, admin key, CA certificate, webhook secret), which becomes the current profile if you
    have none: "${SANDBOX_PROFILE}" for the default directory, "${SANDBOX_PROFILE}-<directory name>-<hash>" for
    another, so that sandboxes of several directories run side by side, each with its own profile. One sandbox at
    a time runs in a data directory.

    It listens on 127.0.0.1 unless --host names another address: ::1 for IPv6 (the profile's base URL is then
    https://[::1]:<port>), or, for clients on other machines (a CI job's other containers), an address of this
    machine or 0.0.0.0 (::) for every interface; anyone who can reach it then can call it, and the keys sent to it
    cross that network. Its certificate names localhost, 127.0.0.1, ::1, the address given and, beyond loopback,
    this machine's host name.

    With --json, stdout carries one line when the sandbox is ready: {"event":"ready","url",…}.
  `;

  static override examples = [
    '<%= config.bin %> sandbox start',
    {
      description: 'Start on any free port with a subscriber, running the retry schedule 1000 times faster',
      command: '<%= config.bin %> sandbox start --port 0 --json --webhook-url http://127.0.0.1:4000/hooks --time-scale 1000',
    },
    {
      description: 'Listen on the IPv6 loopback: the profile then names https://[::1]:8443',
      command: '<%= config.bin %> sandbox start --host ::1',
    },
    {
      description: 'Send the events to a subscriber, v1 signatures in base64',
      command: '<%= config.bin %> sandbox start --webhook-url http://127.0.0.1:4000/hooks --signature-encoding base64',
    },
  ];

  static override flags = {
    host: Flags.string({
      description:
        'Address to listen on: 127.0.0.1 or ::1 (loopback), or, for clients on other machines, an address of this machine or 0.0.0.0 (::) for every interface',
      default: '127.0.0.1',
    }),
    port: Flags.integer({ description: 'Port to listen on (0: any free port)', default: 8443, min: 0, max: 65_535 }),
    'webhook-url': Flags.string({ description: 'Subscriber URL for the events (repeatable; default: those of the previous start)', multiple: true }),
    'webhook-secret': Flags.string({
      description: 'Secret that signs the events (default: SVC_WEBHOOK_SECRET, then the one made on first start)',
      env: 'SVC_WEBHOOK_SECRET',
    }),
    'signature-encoding': Flags.option({
      description:
        "Encoding of the events' v1 signatures: hex (openapi.yaml's choice) or base64, to try a receiver against either (default: that of the previous start, hex at first)",
      options: SIGNATURE_ENCODINGS,
    })(),
    'time-scale': Flags.integer({
      description: 'Divides every delay of the webhook retry schedule (1000: the 24 h schedule in about 70 s)',
      default: 1,
      min: 1,
    }),
    plan: Flags.string({ description: 'Plan whose limits apply (part 8)', options: ['free', 'pro', 'enterprise'], default: 'pro' }),
    'monthly-quota': Flags.integer({ description: "Reports a month for live keys, instead of the plan's 100 (free) or 10,000 (pro)", min: 0 }),
    'analysis-delay': Flags.integer({ description: 'Milliseconds a report or document stays queued before its analysis', default: 500, min: 0 }),
    quiet: Flags.boolean({ char: 'q', description: 'No line per request and per webhook attempt on stderr' }),
    // Budgets of a document's check and deadlines of connections, lowered by tests; hidden, since the
    // defaults suit every real use.
    'document-check-time': Flags.integer({ description: 'Milliseconds of processor time a document check may take', hidden: true, min: 1 }),
    'document-check-memory': Flags.integer({ description: 'MiB a document check may use', hidden: true, min: 16 }),
    'handshake-timeout': Flags.integer({ description: 'Milliseconds to the first byte and to the end of the TLS handshake', hidden: true, min: 1 }),
    'headers-timeout': Flags.integer({ description: "Milliseconds to the end of a request's headers", hidden: true, min: 1 }),
    'request-timeout': Flags.integer({ description: 'Milliseconds to the end of a request (at least --headers-timeout)', hidden: true, min: 1 }),
    'keep-alive-timeout': Flags.integer({ description: 'Milliseconds a kept-alive connection may stay idle', hidden: true, min: 1 }),
  };

  /**
   * The sandbox `start` starts; a port it cannot take is said in words, with what to do (as `webhooks
   * listen` does), and a data directory another sandbox runs with names that sandbox's profile.
   */
  private async started<T>(address: ListenAddress, port: number, dataDir: string, start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (error) {
      if (error instanceof SvcError && error.code === 'sandbox_running') {
        const profile = sandboxProfileName(this.paths, dataDir);
        throw new SvcError(
          error.kind,
          error.code,
          error.message,
          `use that sandbox (profile "${profile}"), stop it first, or start another with --data-dir <another directory>`,
        );
      }
      const code = (error as NodeJS.ErrnoException).code;
      const hints: Record<string, string> = {
        EADDRINUSE: 'another process uses the port (a sandbox already running?): choose another with --port (0: any free port)',
        EACCES: 'the port needs privileges: choose one above 1023 with --port (0: any free port)',
        EADDRNOTAVAIL: `${address.host} is not an address of this machine: give one of its addresses with --host, or 127.0.0.1`,
        EAFNOSUPPORT: `this machine has no ${address.host.includes(':') ? 'IPv6' : 'IPv4'}: give an address of the other family with --host`,
      };
      if (code === undefined || !(code in hints)) throw error;
      const where = address.host.includes(':') ? `[${address.host}]` : address.host;
      throw new SvcError('usage', 'cannot_listen', `cannot listen on ${where}:${port}: ${code}`, hints[code]);
    }
  }

  public async run(): Promise<void> {
    const { flags } = await this.parse(SandboxStart);
    if (flags['webhook-secret'] !== undefined) this.secrets.push(flags['webhook-secret']);
    const network = await this.network();
    const dataDir = this.sandboxDir(flags['data-dir']);
    const address = listenAddress(flags.host);
    if (address.beyondLoopback) {
      this.warning(
        `the sandbox will listen on ${address.host}, beyond loopback: anyone who can reach its port can call it, and every key sent to it crosses that network; keep it to a network of your own (a CI job's containers). Its certificate names ${certificateNames(address).join(', ')}`,
      );
    }
    const sandbox = await this.started(address, flags.port, dataDir, () =>
      startSandbox({
        dataDir,
        address,
        port: flags.port,
        webhookUrls: flags['webhook-url'],
        webhookSecret: flags['webhook-secret'],
        signatureEncoding: flags['signature-encoding'],
        timeScale: flags['time-scale'],
        plan: flags.plan as Plan,
        monthlyQuota: flags['monthly-quota'],
        analysisDelayMs: flags['analysis-delay'],
        documentCheckBudget: { timeMs: flags['document-check-time'], memoryMb: flags['document-check-memory'] },
        connectionDeadlines: {
          handshakeMs: flags['handshake-timeout'],
          headersMs: flags['headers-timeout'],
          requestMs: flags['request-timeout'],
          keepAliveMs: flags['keep-alive-timeout'],
        },
        network,
        log: flags.quiet ? undefined : (line) => this.note(line),
      }),
    );
    const profile = await writeSandboxProfile(sandbox, this.paths);
    const ready: JsonLine = {
      event: 'ready',
      url: sandbox.url,
      host: sandbox.host,
      port: sandbox.port,
      plan: sandbox.plan,
      data_dir: sandbox.dataDir,
      ca_cert: sandbox.certPath,
      profile,
      first_start: sandbox.firstStart,
      webhook_urls: sandbox.webhookUrls,
    };
    // Ctrl-C and SIGTERM are handled before the sandbox says it is ready: whoever starts it may stop it at once.
    const stopped = this.untilInterrupted(() => this.note('Stopping the sandbox…'));
    if (this.jsonEnabled()) this.io.stdout.write(`${this.formatJsonLine(ready)}\n`);
    else this.describe(sandbox, address, profile);

    await stopped;
    await sandbox.close();
  }

  private describe(sandbox: Awaited<ReturnType<typeof startSandbox>>, address: ListenAddress, profile: string): void {
    const where = address.everyInterface ? `every interface (${address.host}), port ${sandbox.port}, on this machine ${sandbox.url}` : sandbox.url;
    this.note(`Sandbox listening on ${where} (plan ${sandbox.plan}, data in ${sandbox.dataDir})`);
    this.note(`Certificate to trust: ${sandbox.certPath}`);
    this.note(`Profile "${profile}" written: try \`svc reports list --profile ${profile}\``);
    if (sandbox.firstStart) {
      const keys = sandbox.store.sandboxKeys();
      this.note(
        renderTable(
          ['role', 'id', 'key'],
          keys.map((key) => [key.role, key.key.id, redactKey(key.secret ?? '')]),
          this.io.stderr,
        ),
      );
      this.note('`svc sandbox keys --reveal` shows the full keys of this local sandbox.');
    }
    const hooks = sandbox.webhookUrls.length ? sandbox.webhookUrls.join(', ') : 'none (pass --webhook-url)';
    this.note(`Webhooks to: ${hooks}, signed with ${redactKey(sandbox.webhookSecret)} (v1 in ${sandbox.signatureEncoding})`);
    this.note('Press Ctrl-C to stop.');
  }
}
