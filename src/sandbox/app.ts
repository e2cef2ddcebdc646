import type { IncomingMessage } from 'node:http';
import type { Authenticator, Scope } from './auth.js';
import type { EventLog } from './events.js';
import type { Processing } from './processing.js';
import type { Plan } from './rate-limit.js';
import type { SandboxStore, StoredKey } from './database.js';

/** What the route handlers work with. */
export interface SandboxApp {
  store: SandboxStore;
  events: EventLog;
  processing: Processing;
  authenticator: Authenticator;
  plan: Plan;
  /** Reports a month that live keys may create (part 8). */
  monthlyQuota: number;
  /** Wakes the webhook dispatcher after a commit that recorded events. */
  dispatch(): void;
}

export interface HandlerContext {
  app: SandboxApp;
  request: IncomingMessage;
  params: string[];
  query: URLSearchParams;
  caller: StoredKey;
  workspaceId: string;
}

/** A success answer: the status and the JSON text of the body. */
export interface Answer {
  status: number;
  body: string;
}

/** How the sandbox answers one operation of openapi.yaml: the scope it needs, and its handler. */
export interface Handler {
  scope: Scope;
  handle(context: HandlerContext): Answer | Promise<Answer>;
}

/** An operation's handler on its method and the pattern of its path. */
export interface Route extends Handler {
  method: string;
  path: RegExp;
}

export function ok(body: unknown, status = 200): Answer {
  return { status, body: typeof body === 'string' ? body : JSON.stringify(body) };
}
