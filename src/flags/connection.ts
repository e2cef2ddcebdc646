import { Flags } from '@oclif/core';
import { caCertFlag, caCertOnlyFlag } from './ca-cert.js';
import { secretFlag } from './secret.js';

/** How an API command reaches the API: each falls back to its SVC_ variable, then the profile (config/connection.ts). */
export const connectionFlags = {
  'base-url': Flags.string({ description: 'Base URL of the API (default: SVC_BASE_URL, then the profile)', helpGroup: 'CONNECTION' }),
  'ca-cert': caCertFlag({ to: 'for the API (default: SVC_CA_CERT, then the profile)', helpGroup: 'CONNECTION' }),
  'ca-cert-only': caCertOnlyFlag({ helpGroup: 'CONNECTION' }),
  'client-cert': Flags.string({
    description: 'PEM client certificate for a gateway that asks for one (default: SVC_CLIENT_CERT, then the profile)',
    helpGroup: 'CONNECTION',
  }),
  'client-key': Flags.string({
    description: 'PEM private key of --client-cert, mode 0600 (default: SVC_CLIENT_KEY, then the profile)',
    helpGroup: 'CONNECTION',
  }),
  'api-key': secretFlag({ description: 'API key', instead: 'SVC_API_KEY or the profile', helpGroup: 'CONNECTION' }),
  timeout: Flags.integer({ description: 'Seconds to wait for each answer', default: 30, min: 1, helpGroup: 'CONNECTION' }),
  retries: Flags.integer({
    description: 'Retries of a GET or DELETE after 429, 502-504 or a connection failure (POST is never retried)',
    default: 3,
    min: 0,
    max: 10,
    env: 'SVC_RETRIES',
    helpGroup: 'CONNECTION',
  }),
  verbose: Flags.boolean({ char: 'v', description: 'Print each request, its status and X-RateLimit-Remaining on stderr', helpGroup: 'CONNECTION' }),
};

/** The admin key of `svc keys …`. */
export const adminKeyFlag = secretFlag({ description: 'Admin key (svc_admin_…)', instead: 'SVC_ADMIN_KEY or the profile', helpGroup: 'CONNECTION' });
