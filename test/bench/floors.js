// The floors of a CLI built on oclif, as ES module scripts for `node --input-type=module -e`: loading
// the @oclif/core svc ships (bundled, with Node's compile cache, as bin/run.js loads it) and nothing
// else, and that plus the GET svc reports get sends, by node:https to BENCH_URL with BENCH_KEY,
// trusting BENCH_CA. No oclif command can start faster.
const oclif = new URL('../../dist/cli/run.js', import.meta.url).href;

export const oclifLoaded = `import { enableCompileCache } from 'node:module'; enableCompileCache(); await import(${JSON.stringify(oclif)});`;

export const oclifLoadedAndHttpsGet = `${oclifLoaded} const { get } = await import('node:https'); const { readFileSync } = await import('node:fs');
get(process.env.BENCH_URL, { ca: readFileSync(process.env.BENCH_CA), headers: { authorization: 'Bearer ' + process.env.BENCH_KEY } }, (r) => { r.resume(); r.on('end', () => process.exit(r.statusCode === 200 ? 0 : 1)); });`;
