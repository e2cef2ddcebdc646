/**
 * `reports create` at a terminal when the service refuses the answers: they are kept, the refusal is
 * shown, and the person may edit the refused answer and send again. A real pseudo-terminal at 80
 * columns against an implementation that refuses the first report with 422, naming the field.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExitCode } from '../../../src/core/errors.js';
import { json, startServer, type TestServer } from '../../helpers/server.js';
import { isolatedEnv } from '../../helpers/svc.js';
import { KEYS, startInTerminal } from '../../helpers/terminal.js';

const KEY = 'svc_test_refused0123456789abcdefghijklm';

let server: TestServer;
beforeAll(async () => {
  server = await startServer((request, response) => {
    if (request.method !== 'POST') return json(response, 404, { error: { code: 'not_found', message: 'no such thing' } });
    const body = JSON.parse(request.body) as Record<string, string>;
    if (body.purpose!.length < 10) {
      return json(response, 422, { error: { code: 'purpose_too_short', message: 'the purpose must say what the trip is for', param: 'purpose' } });
    }
    json(response, 201, {
      id: 'rep_edited1',
      object: 'report',
      ...body,
      status: 'queued',
      risk_score: null,
      score_band: null,
      criteria: null,
      recommendations: null,
      error: null,
      created_at: '2026-01-05T09:30:00Z',
      completed_at: null,
    });
  });
});
afterAll(() => server.close());
beforeEach(() => void (server.requests.length = 0));

const posted = () => server.requests.filter((request) => request.method === 'POST').map((request) => JSON.parse(request.body) as Record<string, string>);

/** Starts `reports create` with the applicant and destination given, and answers the visa type and a purpose the service refuses. */
async function answerTooShortPurpose() {
  const session = startInTerminal(
    ['reports', 'create', '--applicant', 'app_4Jd92kQz', '--destination', 'DE'],
    isolatedEnv({ SVC_BASE_URL: server.url, SVC_API_KEY: KEY }),
  );
  await session.waitFor('Visa type:');
  session.type(KEYS.enter);
  await session.waitFor('Purpose of travel:');
  session.type(`Berlin${KEYS.enter}`);
  await session.waitFor(
    /The service refused the report:\s+422\s+purpose_too_short:\s+the\s+purpose\s+must\s+say\s+what\s+the\s+trip\s+is\s+for\s+\(field\s+purpose\)/,
  );
  await session.waitFor('Edit and send again?');
  return session;
}

describe('reports create at a terminal, refused by the service', () => {
  it('shows the refusal, asks the refused answer again with the earlier one to edit, and sends the edited one', async () => {
    const session = await answerTooShortPurpose();
    session.type(`y${KEYS.enter}`);
    await session.waitFor('Purpose of travel:');
    session.type(`${KEYS.backspace.repeat('Berlin'.length)}Two weeks in Berlin${KEYS.enter}`);
    const { code, screen } = await session.exited();
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/^id +rep_edited1/m);
    const [first, second, ...more] = posted();
    expect(first).toMatchObject({ applicant_id: 'app_4Jd92kQz', destination: 'DE', purpose: 'Berlin' });
    expect(second).toEqual({ ...first, purpose: 'Two weeks in Berlin' });
    expect(more).toEqual([]);
  });

  it('declined, prints the command that sends the answers again and exits as the refusal', async () => {
    const session = await answerTooShortPurpose();
    session.type(`n${KEYS.enter}`);
    const { code, screen } = await session.exited();
    expect(code, screen).toBe(ExitCode.invalidInput);
    expect(screen).toContain('Your answers, to correct and send again:');
    expect(screen).toMatch(/svc reports create --applicant app_4Jd92kQz --destination DE --visa-type\s+tourist\s+--purpose\s+Berlin\s/);
    expect(posted()).toHaveLength(1);
  });
});
