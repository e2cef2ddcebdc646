import { createRequire } from 'node:module';
import type StringWidth from 'string-width';
import type WrapAnsi from 'wrap-ansi';

// string-width and wrap-ansi cost some 30 ms to load (string-width compiles a large emoji expression)
// and only a terminal needs them: they are loaded on first use, so that a command whose output is
// piped or --json never pays for them. Both are ES modules without top-level await, which Node's
// require loads synchronously.
const requireHere = createRequire(import.meta.url);
let loaded: { stringWidth: typeof StringWidth; wrapAnsi: typeof WrapAnsi } | undefined;

function libraries(): NonNullable<typeof loaded> {
  loaded ??= {
    stringWidth: (requireHere('string-width') as { default: typeof StringWidth }).default,
    wrapAnsi: (requireHere('wrap-ansi') as { default: typeof WrapAnsi }).default,
  };
  return loaded;
}

/** The cells `text` takes on a terminal (wide characters two, escape sequences none). */
export function stringWidth(text: string): number {
  return libraries().stringWidth(text);
}

/** `text` wrapped to `columns` cells, escape sequences kept intact. */
export function wrapAnsi(text: string, columns: number, options?: Parameters<typeof WrapAnsi>[2]): string {
  return libraries().wrapAnsi(text, columns, options);
}
