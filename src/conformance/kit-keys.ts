import { assertKey } from '../config/credentials.js';
import { ConfigError, SvcError } from '../core/errors.js';

/** A key of the implementation's workspace that the kit may revoke (made in its dashboard). */
export interface RevocableKey {
  id: string;
  secret: string;
}

export interface KitKeys {
  api: string;
  admin?: string | undefined;
  readOnly?: string | undefined;
  ipLocked?: string | undefined;
  other?: string | undefined;
  otherAdmin?: string | undefined;
  revocable?: RevocableKey | undefined;
  /** A key for the provoked 429 alone (`--rate-limit-key`): of a workspace, or a rate-limit bucket, that no one else uses. */
  rateLimit?: string | undefined;
}

/** How long the kit waits for the implementation; `--report-timeout` and `--event-timeout` set the first two. */
export interface KitTimeouts {
  /** For one answer of the implementation, from connecting to its last byte. */
  answerMs: number;
  /** For a report to finish. */
  completionMs: number;
  /** For a webhook event after what triggers it. */
  eventMs: number;
  /** The window of a first redelivery, around the spec's 30 s: from `redeliveryEarliestMs` to `redeliveryLatestMs` after the failed attempt. */
  redeliveryEarliestMs: number;
  redeliveryLatestMs: number;
  /** How long the kit holds back its answer to make a delivery time out (the spec gives the subscriber 10 s). */
  holdMs: number;
}

export const DEFAULT_TIMEOUTS: KitTimeouts = {
  answerMs: 30_000,
  completionMs: 120_000,
  eventMs: 30_000,
  redeliveryEarliestMs: 24_000,
  redeliveryLatestMs: 45_000,
  holdMs: 15_000,
};

/** The share of each rate-limit window the kit leaves to the workspace's other clients, unless told otherwise: a quarter. */
export const DEFAULT_RESERVE = 0.25;

/** The keys an operator gave the kit (`--api-key`, `--admin-key`…), each checked for its kind. */
export function kitKeys(given: {
  api?: string | undefined;
  admin?: string | undefined;
  readOnly?: string | undefined;
  ipLocked?: string | undefined;
  other?: string | undefined;
  otherAdmin?: string | undefined;
  revocableId?: string | undefined;
  revocable?: string | undefined;
  rateLimit?: string | undefined;
}): KitKeys {
  if (!given.api)
    throw new ConfigError(
      'no_api_key',
      'no API key of the implementation',
      "pass a svc_test_ key with --api-key, or better SVC_API_KEY; the embedded sandbox's keys are shown by `svc sandbox keys --reveal`",
    );
  if (assertKey(given.api, 'api_key', '--api-key') !== 'test') {
    throw new ConfigError(
      'not_a_test_key',
      'the kit needs a svc_test_ key: it creates reports (a live key would consume credits) and checks that test keys give deterministic results',
      'pass a svc_test_ key with --api-key or SVC_API_KEY',
    );
  }
  if (given.admin) assertKey(given.admin, 'admin_key', '--admin-key');
  if (given.otherAdmin) assertKey(given.otherAdmin, 'admin_key', '--other-workspace-admin-key');
  if (given.readOnly) assertKey(given.readOnly, 'api_key', '--read-only-key');
  if (given.ipLocked) assertKey(given.ipLocked, 'api_key', '--ip-locked-key');
  if (given.other) assertKey(given.other, 'api_key', '--other-workspace-key');
  if (given.revocable) assertKey(given.revocable, 'api_key', '--revocable-key');
  if (given.rateLimit) assertKey(given.rateLimit, 'api_key', '--rate-limit-key');
  if (given.revocable && !given.revocableId)
    throw new SvcError('usage', 'revocable_key_without_id', 'a key to revoke was given without its id', 'give its id (key_…) with --revocable-key-id');
  if (given.revocableId && !given.revocable)
    throw new SvcError(
      'usage',
      'revocable_key_without_secret',
      `--revocable-key-id ${given.revocableId} was given without the key's secret`,
      'give the secret in SVC_REVOCABLE_KEY (or --revocable-key)',
    );
  return {
    api: given.api,
    admin: given.admin,
    readOnly: given.readOnly,
    ipLocked: given.ipLocked,
    other: given.other,
    otherAdmin: given.otherAdmin,
    revocable: given.revocableId && given.revocable ? { id: given.revocableId, secret: given.revocable } : undefined,
    rateLimit: given.rateLimit,
  };
}
