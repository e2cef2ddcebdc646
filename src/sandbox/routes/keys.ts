import type { OperationId } from '../../api/operations.js';
import type { KeyCreate } from '../../api/types.js';
import { type Answer, type HandlerContext, ok, type Handler } from '../app.js';
import { HttpError, readJson } from '../http.js';
import { nowIso } from '../../core/ids.js';
import { createKey } from '../workspace-keys.js';
import { validBody } from '../validation.js';

function stored({ app, params, workspaceId }: HandlerContext) {
  const found = app.store.keyById(workspaceId, params[0]!);
  if (!found) throw new HttpError(404, 'not_found', `no key ${params[0]} in this workspace`);
  return found;
}

async function create({ app, request, workspaceId }: HandlerContext): Promise<Answer> {
  const body = validBody<KeyCreate>('KeyCreate', await readJson(request));
  const { key, secret } = createKey(app.store, workspaceId, {
    name: body.name ?? null,
    environment: body.environment ?? 'test',
    readOnly: body.read_only ?? false,
    allowedIps: body.allowed_ips ?? [],
  });
  return ok({ ...key, secret }, 201);
}

function list({ app, query, workspaceId }: HandlerContext): Answer {
  const limitText = query.get('limit') ?? '20';
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1 || limit > 100) throw new HttpError(422, 'invalid_request', 'limit must be an integer from 1 to 100', 'limit');
  const cursor = query.get('starting_after') ?? undefined;
  if (cursor !== undefined && !app.store.keyById(workspaceId, cursor)) {
    throw new HttpError(422, 'invalid_request', `starting_after names no key of this workspace: ${cursor}`, 'starting_after');
  }
  const page = app.store.keysOf(workspaceId, limit, cursor);
  return ok({ object: 'list', data: page.keys, has_more: page.hasMore });
}

function get(context: HandlerContext): Answer {
  return ok(stored(context).key);
}

/** Part 5: revocation takes effect at once; revoking a revoked key answers the same result again. */
function revoke(context: HandlerContext): Answer {
  const { key } = stored(context);
  const revoked = key.status === 'revoked' ? key : { ...key, status: 'revoked' as const, revoked_at: nowIso() };
  if (revoked !== key) {
    context.app.store.updateKey(context.workspaceId, revoked);
    context.app.authenticator.forget();
  }
  return ok({ id: key.id, object: 'key', revoked: true, revoked_at: revoked.revoked_at });
}

export const keyHandlers = {
  createKey: { scope: 'admin', handle: create },
  listKeys: { scope: 'admin', handle: list },
  getKey: { scope: 'admin', handle: get },
  revokeKey: { scope: 'admin', handle: revoke },
} satisfies Partial<Record<OperationId, Handler>>;
