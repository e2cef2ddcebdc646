import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

it('the committed src/api/schemas.json is what `npm run generate` makes of openapi.yaml', () => {
  const fresh = join(mkdtempSync(join(tmpdir(), 'svc-schemas-')), 'schemas.json');
  execFileSync(process.execPath, [join(root, 'scripts/schemas.js'), fresh], { stdio: 'pipe' });
  expect(readFileSync(join(root, 'src/api/schemas.json'), 'utf8'), 'run `npm run generate` and commit src/api/schemas.json').toBe(readFileSync(fresh, 'utf8'));
});
