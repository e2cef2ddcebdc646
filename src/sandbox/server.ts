import { join } from 'node:path';
import type { Network } from '../api/network.js';
import type { SandboxApp } from './app.js';
import { Authenticator, clientAddress } from './auth.js';
import type { SignatureEncoding } from '../webhooks/signature.js';
import { signatureEncodingSetting, WebhookDispatcher } from './dispatcher.js';
import { EventLog } from './events.js';
import { type ConnectionDeadlines, DEFAULT_CONNECTION_DEADLINES, listenWithTlsFront } from './front.js';
import { DEFAULT_DOCUMENT_CHECK_BUDGET, type DocumentCheckBudget } from './document-checker.js';
import { type Clock, systemClock } from '../core/clock.js';
import { SvcError } from '../core/errors.js';
import { FileLockHeld, type FileLock, takeFileLock } from '../core/file-lock.js';
import { randomToken } from '../core/ids.js';
import { KeyUseRecorder } from './key-uses.js';
import { ensureSandboxKeys } from './workspace-keys.js';
import { Processing } from './processing.js';
import { AddressLimiter, type Plan, PLAN_LIMITS, RateLimiter } from './rate-limit.js';
import { requestHandler } from './request-handler.js';
import { SandboxStore } from './database.js';
import { ensureCertificate } from './tls.js';
import { certificateNames, type ListenAddress, localBaseUrl } from './listen-address.js';

export interface SandboxOptions {
  dataDir: string;
  /** Where to listen (listenAddress): 127.0.0.1 when not given. */
  address?: ListenAddress | undefined;
  port: number;
  /** Subscriber URLs; when not given, those of the previous start are kept. */
  webhookUrls?: string[] | undefined;
  /** When not given, the one of the previous start, or a new one on first start. */
  webhookSecret?: string | undefined;
  /** The encoding of v1; when not given, that of the previous start, hex (openapi.yaml's) at first. */
  signatureEncoding?: SignatureEncoding | undefined;
  timeScale?: number;
  plan?: Plan;
  /** Reports a month for live keys, instead of the plan's (to try out the quota). */
  monthlyQuota?: number | undefined;
  analysisDelayMs?: number;
  /** What one document's check may take (defaults: DEFAULT_DOCUMENT_CHECK_BUDGET). */
  documentCheckBudget?: Partial<DocumentCheckBudget> | undefined;
  /** One line per request and per webhook attempt. */
  log?: ((line: string) => void) | undefined;
  /** The proxies and trust webhook deliveries go through. */
  network: Network;
  /** Deadlines of slow and idle connections (defaults: DEFAULT_CONNECTION_DEADLINES). */
  connectionDeadlines?: Partial<ConnectionDeadlines> | undefined;
  /** The time of the keys' last use, of every answer's Date header and of the webhook retry schedule (the system's when not given). */
  clock?: Clock | undefined;
}

export interface Sandbox {
  /** How a client on this machine reaches it (localBaseUrl). */
  url: string;
  /** The address it listens on. */
  host: string;
  port: number;
  dataDir: string;
  certPath: string;
  webhookUrls: string[];
  webhookSecret: string;
  signatureEncoding: SignatureEncoding;
  plan: Plan;
  /** Whether the workspaces and keys were made by this start. */
  firstStart: boolean;
  store: SandboxStore;
  close(): Promise<void>;
}

function plainHttpRefusal(remaining: number): string {
  const body = JSON.stringify({ error: { code: 'https_required', message: 'plain HTTP is not accepted; use https://' } });
  return [
    'HTTP/1.1 400 Bad Request',
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-RateLimit-Remaining: ${remaining}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** The settings of this start, those given or else those of the last start (a new webhook secret the first time), stored for the next. */
function storeSettings(store: SandboxStore, options: SandboxOptions): { webhookSecret: string; webhookUrls: string[]; signatureEncoding: SignatureEncoding } {
  const webhookSecret = options.webhookSecret ?? store.setting('webhook_secret') ?? `whsec_${randomToken(32)}`;
  store.setSetting('webhook_secret', webhookSecret);
  const webhookUrls = options.webhookUrls ?? (JSON.parse(store.setting('webhook_urls') ?? '[]') as string[]);
  store.setSetting('webhook_urls', JSON.stringify(webhookUrls));
  store.setSetting('time_scale', String(options.timeScale ?? 1));
  const signatureEncoding = options.signatureEncoding ?? signatureEncodingSetting(store);
  store.setSetting('signature_encoding', signatureEncoding);
  return { webhookSecret, webhookUrls, signatureEncoding };
}

const LOOPBACK: ListenAddress = { host: '127.0.0.1', everyInterface: false, beyondLoopback: false };

/**
 * The embedded sandbox: the whole specification over HTTPS on loopback (or the address given), with state in SQLite.
 * Plain HTTP on the same port is answered 400 `https_required` (part 5.2) and the connection closed.
 */
export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const lock = await lockDataDir(options.dataDir);
  try {
    return await startLocked(options, lock);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/**
 * One sandbox at a time in a data directory: two would both deliver the events of its database, and
 * the second would point the directory's profile at itself while the first still serves its users.
 */
async function lockDataDir(dataDir: string): Promise<FileLock> {
  try {
    return await takeFileLock(join(dataDir, 'sandbox.lock'));
  } catch (error) {
    if (!(error instanceof FileLockHeld)) throw error;
    throw new SvcError(
      'refused',
      'sandbox_running',
      `a sandbox already runs with the data directory ${dataDir} (${error.holder || 'another svc process'})`,
      'use that one, stop it first, or start another with --data-dir <another directory>',
    );
  }
}

async function startLocked(options: SandboxOptions, lock: FileLock): Promise<Sandbox> {
  const plan = options.plan ?? 'pro';
  const clock = options.clock ?? systemClock;
  const address = options.address ?? LOOPBACK;
  const certificate = await ensureCertificate(options.dataDir, certificateNames(address));
  const store = new SandboxStore(options.dataDir);
  const firstStart = ensureSandboxKeys(store);
  const { webhookSecret, webhookUrls, signatureEncoding } = storeSettings(store, options);

  const dispatcher = new WebhookDispatcher(store, {
    secret: webhookSecret,
    signatureEncoding,
    timeScale: options.timeScale ?? 1,
    network: options.network,
    log: options.log,
    clock,
  });
  const events = new EventLog(store, webhookUrls, clock);
  const documentCheckBudget = { ...DEFAULT_DOCUMENT_CHECK_BUDGET, ...definedOnly(options.documentCheckBudget) };
  const processing = new Processing(store, events, {
    delayMs: options.analysisDelayMs ?? 500,
    onEvents: () => dispatcher.wake(),
    dataDir: options.dataDir,
    documentCheckBudget,
  });
  const authenticator = new Authenticator(store);
  const monthlyQuota = options.monthlyQuota ?? PLAN_LIMITS[plan].reportsPerMonth;
  const app: SandboxApp = { store, events, processing, authenticator, plan, monthlyQuota, dispatch: () => dispatcher.wake() };
  const limiter = new RateLimiter(PLAN_LIMITS[plan].perMinute);
  const addresses = new AddressLimiter(limiter);

  const keyUses = new KeyUseRecorder(store, clock);
  const handle = requestHandler({ app, authenticator, limiter, addresses, plan, keyUses, clock, log: options.log });

  const front = await listenWithTlsFront({
    host: address.host,
    port: options.port,
    certificate,
    deadlines: { ...DEFAULT_CONNECTION_DEADLINES, ...definedOnly(options.connectionDeadlines) },
    onRequest: (request, response) => void handle(request, response),
    refusePlain: (socket) => plainHttpRefusal(addresses.unauthenticated(clientAddress(socket.remoteAddress)).remaining),
  });
  const { port } = front;

  processing.resume();
  dispatcher.start();
  const url = localBaseUrl(address, port);
  await lock.describe(`process ${process.pid}, serving ${url}`);

  return {
    url,
    host: address.host,
    port,
    dataDir: options.dataDir,
    certPath: certificate.certPath,
    webhookUrls,
    webhookSecret,
    signatureEncoding,
    plan,
    firstStart,
    store,
    async close() {
      await front.close();
      await processing.stop();
      await dispatcher.stop();
      keyUses.stop();
      store.close();
      await lock.release();
    },
  };
}

/** The options given, without those left undefined (which would hide the defaults they are spread over). */
function definedOnly<T extends object>(values: Partial<T> | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(values ?? {}).filter(([, value]) => value !== undefined)) as Partial<T>;
}
