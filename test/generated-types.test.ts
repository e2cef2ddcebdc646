import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

it('the committed src/api/schema.d.ts is what `npm run generate` makes of openapi.yaml', () => {
  const fresh = join(mkdtempSync(join(tmpdir(), 'svc-schema-')), 'schema.d.ts');
  execFileSync(process.execPath, [join(root, 'node_modules/openapi-typescript/bin/cli.js'), join(root, 'openapi.yaml'), '-o', fresh], { stdio: 'pipe' });
  expect(readFileSync(join(root, 'src/api/schema.d.ts'), 'utf8'), 'run `npm run generate` and commit src/api/schema.d.ts').toBe(readFileSync(fresh, 'utf8'));
});
