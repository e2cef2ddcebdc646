import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { apiError, json, startServer, type TestServer } from '../../helpers/server.js';
import { svcInProcess, type InProcessResult } from '../../helpers/in-process.js';
import { isolatedEnv } from '../../helpers/svc.js';

const KEY = 'svc_test_applicants0123456789abcdefghijk';

export const APPLICANT = {
  id: 'app_4Jd92kQz',
  object: 'applicant',
  given_names: 'Ana Maria',
  surname: 'Silva',
  date_of_birth: '1990-04-12',
  nationality: 'PT',
  passport_number: 'X1234567',
  passport_expiry: '2031-05-01',
  occupation: 'Engineer',
  employment_status: 'employed',
  monthly_income: 3200,
  savings: 15000,
  currency: 'EUR',
  travel_history: [
    { country: 'DE', year: 2023, overstayed: false },
    { country: 'US', year: 2019, overstayed: true },
  ],
  previous_refusals: 0,
  created_at: '2026-01-05T09:30:00Z',
  updated_at: '2026-01-06T10:00:00Z',
};

export const REQUIRED = ['--given-names', 'Ana Maria', '--surname', 'Silva', '--date-of-birth', '1990-04-12', '--nationality', 'PT'];

export interface ApplicantsApi {
  /** The server, and the requests it took in this test. */
  readonly server: TestServer;
  /** This test's environment: a home of its own, the server's URL and a test key. */
  readonly env: Record<string, string>;
  svc(args: string[]): Promise<InProcessResult>;
  /** Writes a profile file in this test's home and returns its path. */
  profileFile(content: unknown): string;
  /** The body of the one request sent, a POST /v1/applicants. */
  sentBody(): unknown;
  /** The server refuses the next creation as the sandbox would a missing surname. */
  refuseNextCreation(): void;
}

/**
 * A server standing in for the applicants endpoints, for the tests of the file that calls this: it
 * answers APPLICANT to every request, 404 for app_missing. Each test starts with a fresh home and no
 * request recorded.
 */
export function useApplicantsApi(): ApplicantsApi {
  let server: TestServer;
  let env: Record<string, string>;
  let refuse = false;
  beforeAll(async () => {
    server = await startServer((request, response) => {
      if (refuse) return json(response, 422, { error: { code: 'invalid_request', message: 'surname is required', param: 'surname' } });
      if (request.path === '/v1/applicants/app_missing') return apiError(response, 404, 'not_found', "No such applicant 'app_missing'.");
      if (request.method === 'GET') return json(response, 200, APPLICANT);
      json(response, JSON.parse(request.body).id ? 200 : 201, APPLICANT);
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    refuse = false;
    env = isolatedEnv({ SVC_BASE_URL: server.url, SVC_API_KEY: KEY });
  });
  return {
    get server() {
      return server;
    },
    get env() {
      return env;
    },
    svc: (args) => svcInProcess(args, { env }),
    profileFile(content) {
      const path = join(env.HOME!, 'profile.json');
      writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
      return path;
    },
    sentBody() {
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/applicants' });
      return JSON.parse(server.requests[0]!.body);
    },
    refuseNextCreation() {
      refuse = true;
    },
  };
}
