import { randomBytes } from 'node:crypto';
import type { KitContext } from '../context.js';
import type { PlainAnswer } from '../http.js';

const answers = new WeakMap<KitContext, Map<boolean, Promise<PlainAnswer>>>();

/**
 * One GET /v1/reports in plain HTTP to the implementation's host (see ImplementationClient.plainHttp),
 * made once per run and port. It carries a random key of the test key's form, never a real one:
 * whatever is on the path or logs that port learns nothing, and the checks judge only the answer.
 */
export function plainHttpAnswer(context: KitContext, onHttpsPort = false): Promise<PlainAnswer> {
  let byPort = answers.get(context);
  if (!byPort) answers.set(context, (byPort = new Map<boolean, Promise<PlainAnswer>>()));
  let answer = byPort.get(onHttpsPort);
  if (!answer) {
    answer = context.client.plainHttp('/v1/reports', `Bearer svc_test_${randomBytes(24).toString('hex')}`, onHttpsPort);
    byPort.set(onHttpsPort, answer);
  }
  return answer;
}
