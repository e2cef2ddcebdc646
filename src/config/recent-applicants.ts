import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeSecretFile } from '../core/secret-file.js';

/** Applicants kept per service, newest first: ids only, never a name or any other personal data. */
const KEPT = 20;
const file = (stateDir: string) => join(stateDir, 'recent-applicants.json');

async function readAll(stateDir: string): Promise<Record<string, string[]>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(file(stateDir), 'utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, string[]>) : {};
  } catch {
    return {};
  }
}

/** The ids of the applicants svc created lately at this base URL, newest first (kept in `stateDir`). */
export async function recentApplicants(stateDir: string, baseUrl: string): Promise<string[]> {
  const ids = (await readAll(stateDir))[baseUrl];
  return Array.isArray(ids) ? ids.filter((id) => typeof id === 'string') : [];
}

/** Remembers an applicant svc created, for `reports create` to offer; a failure to remember is no failure of the command. */
export async function rememberApplicant(stateDir: string, baseUrl: string, id: string): Promise<void> {
  try {
    const all = await readAll(stateDir);
    all[baseUrl] = [id, ...(all[baseUrl] ?? []).filter((known) => known !== id)].slice(0, KEPT);
    await writeSecretFile(file(stateDir), `${JSON.stringify(all, null, 2)}\n`);
  } catch {
    // Only a convenience: the applicant exists, and its id was printed.
  }
}
