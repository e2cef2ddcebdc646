import type { Key } from '../api/types.js';
import { KEY_PREFIXES, type KeyEnvironment, redactKey } from '../core/redaction.js';
import { newId, nowIso, randomToken } from '../core/ids.js';
import { hashSecret, type KeyRole, type SandboxStore } from './database.js';

const MAIN_WORKSPACE = 'ws_main';
const OTHER_WORKSPACE = 'ws_other';
/** TEST-NET-1 (RFC 5737): an address no request of this machine comes from. */
const LOCKED_IP = '192.0.2.10';

export interface NewKey {
  name: string | null;
  environment: KeyEnvironment;
  readOnly: boolean;
  allowedIps: string[];
}

/** Makes a key and its secret; the secret is returned once and only its hash is kept. */
export function createKey(store: SandboxStore, workspaceId: string, spec: NewKey, role: KeyRole | null = null): { key: Key; secret: string } {
  const secret = `${KEY_PREFIXES[spec.environment]}${randomToken(32)}`;
  const key: Key = {
    id: newId('key'),
    object: 'key',
    name: spec.name,
    environment: spec.environment,
    prefix_hint: redactKey(secret),
    read_only: spec.readOnly,
    allowed_ips: spec.allowedIps,
    status: 'active',
    created_at: nowIso(),
    last_used_at: null,
    last_used_ip: null,
    revoked_at: null,
  };
  store.insertKey({ key, workspaceId, role, secret: role ? secret : null }, hashSecret(secret));
  return { key, secret };
}

const SANDBOX_KEYS: Array<{ role: KeyRole; workspace: string; spec: NewKey }> = [
  { role: 'test', workspace: MAIN_WORKSPACE, spec: { name: 'sandbox test key', environment: 'test', readOnly: false, allowedIps: [] } },
  { role: 'read_only', workspace: MAIN_WORKSPACE, spec: { name: 'sandbox read-only key', environment: 'test', readOnly: true, allowedIps: [] } },
  {
    role: 'ip_locked',
    workspace: MAIN_WORKSPACE,
    spec: { name: `sandbox key locked to ${LOCKED_IP}`, environment: 'test', readOnly: false, allowedIps: [LOCKED_IP] },
  },
  { role: 'admin', workspace: MAIN_WORKSPACE, spec: { name: 'sandbox admin key', environment: 'admin', readOnly: false, allowedIps: [] } },
  { role: 'other_workspace', workspace: OTHER_WORKSPACE, spec: { name: 'second workspace test key', environment: 'test', readOnly: false, allowedIps: [] } },
  {
    role: 'other_workspace_admin',
    workspace: OTHER_WORKSPACE,
    spec: { name: 'second workspace admin key', environment: 'admin', readOnly: false, allowedIps: [] },
  },
];

/** The two workspaces and their keys, made on first start, and any key a later version of svc added; returns whether this was the first start. */
export function ensureSandboxKeys(store: SandboxStore): boolean {
  const existing = new Set(store.sandboxKeys().map((stored) => stored.role));
  const missing = SANDBOX_KEYS.filter(({ role }) => !existing.has(role));
  if (missing.length > 0) {
    store.transaction(() => {
      for (const { role, workspace, spec } of missing) createKey(store, workspace, spec, role);
    });
  }
  return existing.size === 0;
}
