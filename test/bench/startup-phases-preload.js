// Loaded with --import into an svc call by startup-phases.js: turns on oclif's performance marks and
// writes, at exit, the wall and CPU time of every mark (start and stop) and of the preload itself,
// from the process's start, as JSON to the file BENCH_PHASES_FILE names.
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

globalThis.oclif = { ...globalThis.oclif, performanceEnabled: true };
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const marks = { preload: { wall: performance.now(), cpu: cpuMs() } };
const mark = performance.mark.bind(performance);
performance.mark = (name, ...rest) => {
  // oclif loads a configuration once more inside a command, at once: the first marks are kept.
  marks[name] ??= { wall: performance.now(), cpu: cpuMs() };
  return mark(name, ...rest);
};
process.on('exit', () => {
  marks.exit = { wall: performance.now(), cpu: cpuMs() };
  writeFileSync(process.env.BENCH_PHASES_FILE, JSON.stringify(marks));
});
