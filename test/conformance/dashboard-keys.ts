/**
 * Implementations with no key API but the stated DELETE /v1/keys/{id}, whose keys are made in the
 * dashboard, given to the kit as issue 42 found them given to pipelines: one key to revoke for every
 * run. A key an earlier run spent, or one that another run given the same key revokes while this run
 * is still revoking it, is no fault of the implementation: the checks that need it are skipped or
 * inconclusive, never failed.
 */
import { keyRole, type ProxiedRequest, type ProxyState, type Variant } from '../helpers/mutating-implementation.js';

/** The checks that revoke the key given to the run, or read its id. */
const KEY_CHECKS = ['auth.revocation-needs-admin', 'auth.workspace-admin', 'auth.revocation-immediate', 'keys.revoke', 'keys.id-prefix'];

/** No key API: POST /v1/keys and the rest answer 404. */
function noKeyApi(request: ProxiedRequest): { status: number; json: unknown } | undefined {
  if (!request.path.startsWith('/v1/keys') || (request.method === 'DELETE' && /^\/v1\/keys\/[^/?]+$/.test(request.path))) return undefined;
  return { status: 404, json: { error: { code: 'not_found', message: 'keys are managed in the dashboard' } } };
}

const INVALID_KEY = { status: 401, json: { error: { code: 'invalid_key', message: 'the key is revoked, expired or does not exist' } } };

/** The key of the dashboard the run was given, when `request` bears it (the test's "dashboard" made it: the proxy knows it as made). */
function bearsDashboardKey(request: ProxiedRequest, state: ProxyState): boolean {
  return keyRole(state, request.headers)?.startsWith('created:') === true;
}

/** The key given to the run was revoked by an earlier run: it gets 401 invalid_key from its first request. */
export const DASHBOARD_KEY_SPENT: Variant = {
  name: 'dashboard-key-spent',
  change: 'no key API; the key of the dashboard the kit is given was revoked by an earlier run',
  breaks: [],
  only: ['auth.*', 'keys.*'],
  skips: KEY_CHECKS,
  skipReasons: Object.fromEntries(
    KEY_CHECKS.map((id) => [
      id,
      /^the key to revoke, key_\w+ of --revocable-key-id, is not in the state the check needs: GET \/v1\/reports with it answered 401 .*invalid_key.*; the implementation makes no key through POST \/v1\/keys \(POST \/v1\/keys answered 404 .*\), so give each run a key of the dashboard of its own, made for it$/,
    ]),
  ),
  dashboardKeys: true,
  request: (request, state) => noKeyApi(request) ?? (bearsDashboardKey(request, state) ? INVALID_KEY : undefined),
};

/**
 * Another run given the same key revokes it just after this run's test key was refused the
 * revocation: the key stops working, which says nothing of the refused revocation, nor of the
 * revocations after it. The implementation breaks no rule; the kit has no evidence either way.
 */
export function dashboardKeyRevokedMeanwhile(): Variant {
  let revokedElsewhere = false;
  const revokedAfter =
    /stopped working after its revocation with the test key was refused \(GET \/v1\/reports then answered 401 .*\), which is no evidence that the refused revocation took effect: key_\w+ is a key given to the run, not one it made: another run given the same key \(a pipeline running beside this one\), or a person, may have revoked it meanwhile/;
  const deadBefore =
    /no longer worked before its revocation with .*, so whether that revocation takes effect cannot be seen: key_\w+ is a key given to the run, not one it made/;
  return {
    name: 'dashboard-key-revoked-meanwhile',
    change: "no key API; another run revokes the dashboard's key the kit is given just after the kit's test key was refused its revocation",
    breaks: [],
    inconclusive: ['auth.revocation-needs-admin', 'auth.workspace-admin', 'auth.revocation-immediate'],
    reasons: { 'auth.revocation-needs-admin': revokedAfter, 'auth.workspace-admin': deadBefore, 'auth.revocation-immediate': deadBefore },
    only: ['auth.*', 'keys.*'],
    dashboardKeys: true,
    request(request, state) {
      const refused = noKeyApi(request);
      if (refused) return refused;
      if (revokedElsewhere && bearsDashboardKey(request, state)) return INVALID_KEY;
      const target = /^\/v1\/keys\/([^/?]+)$/.exec(request.path)?.[1];
      // The test key's revocation goes on to be refused; the other run's lands as soon as it is.
      if (request.method === 'DELETE' && target && state.created.has(target) && keyRole(state, request.headers) === 'test') revokedElsewhere = true;
      return undefined;
    },
  };
}
