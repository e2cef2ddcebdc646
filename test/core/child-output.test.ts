import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { copyRedacted } from '../../src/core/child-output.js';
import { redactKey } from '../../src/core/redaction.js';

/** A real shell child whose stdout is copied, redacted, to a sink the test reads. */
function copiedChild(script: string, secrets: string[] = []) {
  const child = spawn('sh', ['-c', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const sink = new PassThrough();
  let text = '';
  sink.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  const copy = copyRedacted(child.stdout, sink, secrets);
  return {
    child,
    text: () => text,
    /** Resolves once the sink has received `expected`. */
    shows: (expected: string) =>
      new Promise<void>((resolve) => {
        const check = () => text.includes(expected) && (resolve(), true);
        if (!check()) sink.on('data', check);
      }),
    done: copy.done,
  };
}

describe('copyRedacted', () => {
  it('passes every byte on, up to an unfinished last line', async () => {
    const copied = copiedChild("seq 1 200000; printf 'no line break at the end'");
    await copied.done;
    const lines = Array.from({ length: 200_000 }, (_, index) => `${index + 1}\n`).join('');
    expect(copied.text()).toBe(`${lines}no line break at the end`);
  });

  it('redacts a secret written in three parts, with pauses between them', async () => {
    const secret = 'placeholder-deploy-secret-value';
    const copied = copiedChild(`printf 'secret: placeholder-'; sleep 0.3; printf 'deploy-secret'; sleep 0.3; printf '%s\\n' '-value, done'`, [secret]);
    await copied.done;
    expect(copied.text()).toBe(`secret: ${redactKey(secret)}, done\n`);
  });

  it('shows the start of a line before it ends', async () => {
    const copied = copiedChild("printf 'progress: 10%%'; read answer; printf ' 100%%\\n'");
    await copied.shows('progress: 10%');
    copied.child.stdin.end('\n');
    await copied.done;
    expect(copied.text()).toBe('progress: 10% 100%\n');
  });

  it('holds back only an end that may begin a key, until the key is whole', async () => {
    const copied = copiedChild("printf 'new key svc_te'; read answer; printf 'st_placeholderplaceholder1234\\n'");
    await copied.shows('new key ');
    expect(copied.text()).toBe('new key ');
    copied.child.stdin.end('\n');
    await copied.done;
    expect(copied.text()).toBe('new key svc_test_…1234\n');
  });

  it('holds back a key of the base64 alphabet that is not whole yet', async () => {
    const copied = copiedChild("printf 'new key svc_test_q8+Zr3'; read answer; printf 'kP0/vXw9mN2=\\n'");
    await copied.shows('new key ');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(copied.text()).toBe('new key ');
    copied.child.stdin.end('\n');
    await copied.done;
    expect(copied.text()).toBe('new key svc_test_…mN2=\n');
  });
});
