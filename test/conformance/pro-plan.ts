/**
 * An implementation on the Pro plan with a workspace already in use, which chose as issue 22 says:
 * v1 in base64, keys made only in the dashboard, a list paged by an opaque cursor (beside a next link
 * to another origin, which the kit must not follow), 40 reports of each workspace before the kit's
 * own, three to a page (the kit's beyond the 10th page), and a real rate limit of 120 requests a
 * minute per workspace. The faithful one must pass at level spec; each mutant breaks one stated rule
 * where only evidence the kit collects to the end can show it.
 */
import { createHmac } from 'node:crypto';
import { keyRole, type ProxiedRequest, type ProxiedResponse, type ProxyState, retrying, type Variant } from '../helpers/mutating-implementation.js';
import type { Json } from './variants.js';
import { steppingClock } from '../helpers/clock.js';

const PER_MINUTE = 120;
const WINDOW_MS = 60_000;
const PAGE_SIZE = 3;
const SEEDED = 40;
/** Where the implementation's own next links point: a host of its own, not the API's origin. */
const LINK_ORIGIN = 'https://reports-cdn.pro-plan.example';

type Workspace = 'main' | 'other';

interface Mutation {
  name: string;
  change: string;
  breaks: string[];
  /** The checks the kit runs for this mutant. */
  only: string[];
  /** The 429 carries no X-RateLimit-Remaining. */
  noRemainingOn429?: boolean;
  sha1?: boolean;
  /** The other workspace's list pages through the main workspace's reports once its own 40 are shown. */
  leakOtherList?: boolean;
  /** A deleted report stays in the list, after the 40 older ones. */
  listDeleted?: boolean;
  /** The list is paged only by its link to another origin, with no cursor: the kit cannot read past the first page. */
  linksElsewhereOnly?: boolean;
  /** For a variant that must pass: the checks it leaves nothing to judge. */
  skips?: string[];
}

type Cursor = { seed: number } | { after: string; offset: number };

const encode = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');
function decode(text: string | null): Cursor | undefined {
  if (!text) return undefined;
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
  } catch {
    return undefined;
  }
}

function workspaceOf(state: ProxyState, request: ProxiedRequest): Workspace | undefined {
  const role = keyRole(state, request.headers);
  if (!role || role === 'unknown') return undefined;
  return role.startsWith('other_workspace') ? 'other' : 'main';
}

function seeds(workspace: Workspace): Json[] {
  return Array.from({ length: SEEDED }, (_, index) => ({
    id: `rep_seed${workspace}${String(index).padStart(2, '0')}`,
    applicant_id: `app_seed${workspace}`,
    destination: 'FR',
    status: 'completed',
    risk_score: 20,
    created_at: new Date(Date.UTC(2026, 0, 1 + index)).toISOString(),
  }));
}

function listAnswer(items: Json[], next: Cursor | undefined, linkOnly = false): Json {
  const cursor = next && encode(next);
  const links = { next: cursor ? `${LINK_ORIGIN}/v1/reports?cursor=${cursor}` : null };
  return linkOnly ? { data: items, links } : { data: items, next_cursor: cursor ?? null, links };
}

function makeVariant(mutation: Mutation | undefined): Variant {
  // The time the kit and the rate limit share: it stands still until the kit waits (pacing, a
  // Retry-After), so that the kit's burst lands in one window however slowly this machine sends it.
  const clock = steppingClock(Date.now());
  const windows = new Map<string, { startedAt: number; used: number }>();
  const deleted: Record<Workspace, Json[]> = { main: [], other: [] };
  /** The cursor each sandbox-backed list request was asked with, for its answer. */
  const pending = new WeakMap<ProxiedRequest, { cursor: Cursor; workspace: Workspace }>();

  function take(bucket: string): { allowed: boolean; remaining: number; retryAfter: number } {
    const now = clock.now();
    let window = windows.get(bucket);
    if (!window || now - window.startedAt >= WINDOW_MS) {
      window = { startedAt: now, used: 0 };
      windows.set(bucket, window);
    }
    const allowed = window.used < PER_MINUTE;
    if (allowed) window.used++;
    return { allowed, remaining: PER_MINUTE - window.used, retryAfter: Math.max(1, Math.ceil((window.startedAt + WINDOW_MS - now) / 1000)) };
  }

  const remainingOf = new WeakMap<ProxiedRequest, number>();

  function older(workspace: Workspace): Json[] {
    return [...seeds(workspace), ...(mutation?.listDeleted ? deleted[workspace] : [])];
  }

  return {
    name: mutation?.name ?? 'pro-plan',
    change:
      mutation?.change ??
      "the Pro plan (120 requests a minute per workspace, 429 with Retry-After), 40 older reports in each workspace, three to a page (the kit's beyond the 10th), " +
        `an opaque next_cursor beside a links.next to ${LINK_ORIGIN}, keys made only in the dashboard, v1 in base64 over <t>.<body>`,
    breaks: mutation?.breaks ?? [],
    skips: mutation?.skips,
    only: mutation?.only,
    clock,
    // Not --fast where the 429 is to be provoked, and asked to provoke it.
    slow: !mutation || Boolean(mutation.noRemainingOn429),
    provoke429: !mutation || Boolean(mutation.noRemainingOn429),
    dashboardKeys: true,
    deliver: retrying(30_000, (status) => status >= 300),
    request(request, state) {
      const workspace = workspaceOf(state, request);
      const decision = take(workspace ?? 'unauthenticated');
      remainingOf.set(request, decision.remaining);
      const remaining = { 'x-ratelimit-remaining': String(decision.remaining) };
      if (!decision.allowed) {
        return {
          status: 429,
          headers: { 'retry-after': String(decision.retryAfter), ...(mutation?.noRemainingOn429 ? { 'x-ratelimit-remaining': '' } : remaining) },
          json: { error: { code: 'rate_limited', message: `${PER_MINUTE} requests a minute on the Pro plan` } },
        };
      }
      if (request.path.startsWith('/v1/keys') && !(request.method === 'DELETE' && /^\/v1\/keys\/[^/]+$/.test(request.path)))
        return { status: 404, headers: remaining, json: { error: { code: 'not_found', message: 'keys are managed in the dashboard' } } };
      const list = /^\/v1\/reports(\?.*)?$/.exec(request.path);
      if (request.method !== 'GET' || !list || !workspace) return undefined;
      const cursor = decode(new URLSearchParams(list[1]?.slice(1) ?? '').get('cursor')) ?? { seed: 0 };
      // Every page goes to the sandbox, which authenticates the key; the newer reports are its first hundred, paged here.
      request.path = '/v1/reports?limit=100';
      if (mutation?.leakOtherList && workspace === 'other' && !('seed' in cursor)) {
        request.headers.authorization = `Bearer ${state.keys.test}`;
        // The kit's applicant's reports only: other variants share the sandbox's test key, and their newer reports could push the kit's out of the hundred.
        const kitApplicant = [...state.applicants].find(([, owner]) => owner === 'main')?.[0];
        if (kitApplicant) request.path += `&applicant_id=${kitApplicant}`;
      }
      pending.set(request, { cursor, workspace });
      return undefined;
    },
    response(response: ProxiedResponse, request: ProxiedRequest, state: ProxyState) {
      const remaining = remainingOf.get(request);
      if (remaining !== undefined) response.headers['x-ratelimit-remaining'] = String(remaining);
      const reportId = /^\/v1\/reports\/([^/?]+)$/.exec(request.path)?.[1];
      const workspace = workspaceOf(state, request);
      if (request.method === 'DELETE' && reportId && workspace && response.status < 300)
        deleted[workspace].push({ id: reportId, destination: 'FR', status: 'completed', created_at: new Date().toISOString() });
      const listed = pending.get(request);
      if (!listed || response.status !== 200) return;
      const { cursor } = listed;
      if ('seed' in cursor) {
        const all = older(listed.workspace);
        const next: Cursor = cursor.seed + PAGE_SIZE < all.length ? { seed: cursor.seed + PAGE_SIZE } : { after: '', offset: 0 };
        response.json = listAnswer(all.slice(cursor.seed, cursor.seed + PAGE_SIZE), next, mutation?.linksElsewhereOnly);
        return;
      }
      const items = ((response.json as Json | undefined)?.data ?? []) as Json[];
      // After the last report of the page before; where it has gone since, at the same place.
      const found = cursor.after ? items.findIndex((item) => item.id === cursor.after) : -1;
      const start = found >= 0 ? found + 1 : cursor.offset;
      const page = items.slice(start, start + PAGE_SIZE);
      const last = page.at(-1);
      response.json = listAnswer(
        page,
        start + PAGE_SIZE < items.length && last ? { after: String(last.id), offset: start + PAGE_SIZE } : undefined,
        mutation?.linksElsewhereOnly,
      );
    },
    sign(secret, body) {
      const t = Math.floor(Date.now() / 1000);
      const digest = createHmac(mutation?.sha1 ? 'sha1' : 'sha256', secret)
        .update(`${t}.${body}`)
        .digest('base64');
      return { 'service-signature': `t=${t},v1=${digest}` };
    },
    ...(mutation?.sha1 ? { givenSecret: true } : {}),
  };
}

export const PRO_PLAN: Variant = {
  ...makeVariant(undefined),
  notes: {
    'events.signature-valid': /^\d+ deliveries signed with HMAC-SHA256 over <t>\.<raw body>, in base64$/,
    'limits.remaining-header-429': /^a 429 provoked with the test key: \d+ requests in [\d.]+ s, then \d+ s waited for the window to pass$/,
    // Beyond the 40 older reports, three to a page, by the cursor and never by the link to another origin.
    'reports.list':
      /^rep_\w+ found on page (1[4-9]|[2-9]\d) \(\d+ pages by next_cursor \(beside a next link to https:\/\/reports-cdn\.pro-plan\.example, which the kit does not follow\)\)$/,
    // Read to the end: past the 40 older reports, to the last page.
    'reports.delete-permanent':
      /gone from its reads and from the list \((1[4-9]|[2-9]\d) pages by next_cursor \(beside a next link to [^)]*\)(, the last one empty| \(links\.next is empty\))\)$/,
    'auth.workspace-isolation':
      /out of the other workspace's reach and list \((1[4-9]|[2-9]\d) pages by next_cursor \(beside a next link to [^)]*\)(, the last one empty| \(links\.next is empty\))\)$/,
  },
};

/**
 * Conforming, but paged only by links to another origin, which the kit does not follow (its keys
 * would go there): the checks that need the rest of the list are skipped, with the reason, never passed.
 */
export const PRO_PLAN_LINKS_ELSEWHERE: Variant = makeVariant({
  name: 'pro-plan-links-elsewhere',
  change: 'the Pro plan, the list paged only by links.next to another origin, with no cursor',
  breaks: [],
  skips: ['reports.list', 'reports.delete-permanent', 'auth.workspace-isolation'],
  only: ['reports.list', 'reports.delete', 'reports.delete-permanent', 'auth.workspace-isolation'],
  linksElsewhereOnly: true,
});

export const PRO_PLAN_MUTANTS: Variant[] = [
  makeVariant({
    name: 'pro-plan-429-without-remaining',
    change: 'the Pro plan, its 429 without X-RateLimit-Remaining',
    breaks: ['limits.remaining-header-429'],
    only: ['limits.*'],
    noRemainingOn429: true,
  }),
  makeVariant({
    name: 'pro-plan-hmac-sha1',
    change: 'the Pro plan, v1 in base64 of HMAC-SHA1 over <t>.<body>',
    breaks: ['events.signature-valid'],
    only: ['events.*'],
    sha1: true,
  }),
  makeVariant({
    name: 'pro-plan-other-workspace-list',
    change: "the Pro plan, the other workspace's list showing ours after its own 40 reports (beyond the 10th page)",
    breaks: ['auth.workspace-isolation'],
    only: ['auth.workspace-isolation'],
    leakOtherList: true,
  }),
  makeVariant({
    name: 'pro-plan-deleted-listed',
    change: 'the Pro plan, a deleted report listed after the 40 older ones (beyond the 10th page)',
    breaks: ['reports.delete-permanent'],
    only: ['reports.delete', 'reports.delete-permanent'],
    listDeleted: true,
  }),
];
