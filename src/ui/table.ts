import Table from 'cli-table3';
import { terminalText } from './terminal-text.js';

export type Cell = string | number | boolean | null | undefined;

/** A cell's text, escaped: values come from API answers and deliveries. */
function text(cell: Cell): string {
  return cell === null || cell === undefined ? '' : terminalText(String(cell));
}

export function useColor(stream: NodeJS.WriteStream = process.stdout): boolean {
  return Boolean(stream.isTTY) && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
}

/**
 * A table for people on a terminal; tab-separated lines when stdout is piped, so that
 * `cut` and `awk` can take it apart.
 */
export function renderTable(head: string[], rows: Cell[][], stream: NodeJS.WriteStream = process.stdout): string {
  if (!stream.isTTY) return [head, ...rows].map((row) => row.map(text).join('\t')).join('\n');
  const color = useColor(stream);
  const table = new Table({ head, style: { head: color ? ['cyan'] : [], border: color ? ['grey'] : [] } });
  table.push(...rows.map((row) => row.map(text)));
  return table.toString();
}

/** A two-column table of named values, for one resource. */
export function renderFields(fields: Array<[string, Cell]>, stream: NodeJS.WriteStream = process.stdout): string {
  if (!stream.isTTY) return fields.map(([name, value]) => `${name}\t${text(value)}`).join('\n');
  const color = useColor(stream);
  const table = new Table({ style: { head: [], border: color ? ['grey'] : [] } });
  table.push(...fields.map(([name, value]) => ({ [name]: text(value) })));
  return table.toString();
}

/**
 * The named values an answer carries, as `renderFields` shows them: a value that is missing, null
 * or empty gets no row, so that a field an implementation does not have is simply not shown.
 */
export function presentFields(fields: Array<[string, Cell]>, stream: NodeJS.WriteStream = process.stdout): string {
  const present = fields.filter(([, value]) => value !== null && value !== undefined && value !== '');
  return present.length ? renderFields(present, stream) : '';
}
