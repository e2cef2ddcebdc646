/**
 * An implementation of the specification with no key API: keys are made in its "dashboard" (the
 * test adds them), and the only key operation is the stated `DELETE /v1/keys/{id}` with an admin
 * key. GET /v1/keys answers 404, any other method on /v1/keys/{id} 405, as the service of issue 22
 * did. Keys belong to a workspace; `GET /v1/reports` lists that workspace's reports, and
 * `DELETE /v1/reports/{id}` deletes one, a read-only key refused `403 forbidden` before the report is
 * looked for (the scope checked first, as part 7's example has it). A revoked or unknown key gets `401 invalid_key`. A real HTTP server on 127.0.0.1 that records every request;
 * `delayMs` answers slowly. `/_dashboard/last-use/{id}` stands for the dashboard's last use of a key
 * (what a person or the user's own logs would look at), without authentication. Its time (last uses,
 * the Date header) is `clock`'s, the system's unless given.
 */
import type { ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { type Clock, systemClock } from '../../src/core/clock.js';
import { startServer, type TestServer } from './server.js';

interface StoredKey {
  id: string;
  secret: string;
  workspace: string;
  environment: 'test' | 'live' | 'admin';
  readOnly: boolean;
  revoked: boolean;
  lastUsedAt: number | null;
}

export interface DashboardKey {
  id: string;
  secret: string;
}

export interface KeylessImplementation extends TestServer {
  /** Makes a key "in the dashboard", read-write unless it is made read-only. */
  makeKey(environment: 'test' | 'live' | 'admin', workspace?: string, options?: { readOnly?: boolean }): DashboardKey;
  /** Adds a report to a workspace; returns its id. */
  addReport(workspace?: string): string;
  isRevoked(id: string): boolean;
  /** The ids revoked, in the order of their DELETE requests (one entry per request). */
  deletions(): string[];
}

function send(response: ServerResponse, clock: Clock, status: number, body?: unknown): void {
  const headers: Record<string, string> = { 'x-ratelimit-remaining': '99', date: new Date(clock.now()).toUTCString() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  response.writeHead(status, headers).end(body === undefined ? '' : JSON.stringify(body));
}

function fail(response: ServerResponse, clock: Clock, status: number, code: string, message: string): void {
  send(response, clock, status, { error: { code, message } });
}

export async function startKeylessImplementation(options: { delayMs?: number; clock?: Clock } = {}): Promise<KeylessImplementation> {
  const clock = options.clock ?? systemClock;
  const keys: StoredKey[] = [];
  const reports: Array<{ id: string; workspace: string }> = [];
  const deleted: string[] = [];
  let counter = 0;
  const nextId = (prefix: string) => `${prefix}_${(++counter).toString(36).padStart(8, '0')}`;

  function answer(path: string, method: string, authorization: string | undefined, response: ServerResponse): void {
    const lastUse = /^\/_dashboard\/last-use\/(key_\w+)$/.exec(path);
    if (lastUse) {
      const key = keys.find((stored) => stored.id === lastUse[1]);
      return send(response, clock, 200, { last_used_ms_ago: key?.lastUsedAt == null ? null : clock.now() - key.lastUsedAt });
    }
    const bearer = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    if (!bearer) return fail(response, clock, 401, 'unauthorized', 'Authorization header missing or malformed');
    const key = keys.find((stored) => stored.secret === bearer);
    if (!key || key.revoked) return fail(response, clock, 401, 'invalid_key', 'the key is revoked, expired or does not exist');
    key.lastUsedAt = clock.now();

    if (method === 'GET' && path === '/v1/reports') {
      const data = reports.filter((report) => report.workspace === key.workspace).map((report) => ({ id: report.id, status: 'completed' }));
      return send(response, clock, 200, { object: 'list', data, has_more: false });
    }
    const reportPath = /^\/v1\/reports\/([^/]+)$/.exec(path);
    if (reportPath && method === 'DELETE') {
      if (key.readOnly) return fail(response, clock, 403, 'forbidden', 'a read-only key cannot delete a report');
      const index = reports.findIndex((report) => report.id === reportPath[1] && report.workspace === key.workspace);
      if (index < 0) return fail(response, clock, 404, 'not_found', `no report ${reportPath[1]}`);
      reports.splice(index, 1);
      return send(response, clock, 200, { id: reportPath[1], deleted: true });
    }
    const keyPath = /^\/v1\/keys\/([^/]+)$/.exec(path);
    if (keyPath && method === 'DELETE') {
      if (key.environment !== 'admin') return fail(response, clock, 403, 'forbidden', 'revoking a key needs an admin key');
      const target = keys.find((stored) => stored.id === keyPath[1] && stored.workspace === key.workspace);
      if (!target) return fail(response, clock, 404, 'not_found', `no key ${keyPath[1]}`);
      deleted.push(target.id);
      target.revoked = true;
      return send(response, clock, 202, { status: 'revocation accepted' });
    }
    if (keyPath) return fail(response, clock, 405, 'method_not_allowed', `${method} is not allowed on ${path}`);
    return fail(response, clock, 404, 'not_found', `nothing at ${method} ${path}`);
  }

  const server = await startServer((request, response) => {
    const path = new URL(request.path, 'http://127.0.0.1').pathname;
    const reply = () => answer(path, request.method, request.headers.authorization, response);
    if (options.delayMs) setTimeout(reply, options.delayMs);
    else reply();
  });

  return {
    ...server,
    makeKey(environment, workspace = 'ws_main', options = {}) {
      const key: StoredKey = {
        id: nextId('key'),
        secret: `svc_${environment}_${randomBytes(18).toString('base64url')}`,
        workspace,
        environment,
        readOnly: options.readOnly ?? false,
        revoked: false,
        lastUsedAt: null,
      };
      keys.push(key);
      return { id: key.id, secret: key.secret };
    },
    addReport(workspace = 'ws_main') {
      const id = nextId('rep');
      reports.push({ id, workspace });
      return id;
    },
    isRevoked: (id) => keys.find((key) => key.id === id)?.revoked ?? false,
    deletions: () => [...deleted],
  };
}
