import Table from 'cli-table3';
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';
import { terminalText } from './terminal-text.js';

export type Cell = string | number | boolean | null | undefined;

/** A cell's text, escaped: values come from API answers and deliveries. */
function text(cell: Cell): string {
  return cell === null || cell === undefined ? '' : terminalText(String(cell));
}

export function useColor(stream: NodeJS.WriteStream = process.stdout): boolean {
  return Boolean(stream.isTTY) && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
}

/** The terminal's width, 80 when it does not say. */
export function terminalWidth(stream: NodeJS.WriteStream = process.stdout): number {
  return stream.columns || 80;
}

/**
 * A line for people, wrapped to the terminal's width with its continuation lines indented under
 * the text that follows `prefix` (a bullet, a label); left whole when not on a terminal.
 */
export function hangingLine(prefix: string, value: string, stream: NodeJS.WriteStream = process.stdout): string {
  if (!stream.isTTY) return `${prefix}${value}`;
  const indent = stringWidth(prefix);
  const lines = wrapAnsi(value, Math.max(20, terminalWidth(stream) - indent), { hard: true }).split('\n');
  return [`${prefix}${lines[0] ?? ''}`, ...lines.slice(1).map((line) => `${' '.repeat(indent)}${line}`)].join('\n');
}

/** The longest word kept whole in a narrowed column, where the terminal is wide enough for that. */
const WHOLE_WORD = 12;

/**
 * Column widths (padding included) that fit `available`: a column that fits its share keeps its
 * natural width, the others share what is left, none narrower than its floor (the longest word of
 * its title).
 */
function fittedWidths(natural: number[], floors: number[], available: number): number[] {
  const widths = [...natural];
  let open = natural.map((_, index) => index).filter((index) => natural[index]! > floors[index]!);
  while (open.length > 0) {
    const taken = widths.reduce((sum, width, index) => (open.includes(index) ? sum : sum + width), 0);
    const share = Math.floor((available - taken) / open.length);
    const settled = open.filter((index) => natural[index]! <= share || floors[index]! >= share);
    if (settled.length === 0) {
      for (const index of open) widths[index] = share;
      break;
    }
    for (const index of settled) widths[index] = natural[index]! <= share ? natural[index]! : floors[index]!;
    open = open.filter((index) => !settled.includes(index));
  }
  return widths;
}

/**
 * A table for people on a terminal, as wide as the terminal at most (long cells wrap inside their
 * column); tab-separated lines when stdout is piped, so that `cut` and `awk` can take it apart.
 */
export function renderTable(head: string[], rows: Cell[][], stream: NodeJS.WriteStream = process.stdout): string {
  const cells = rows.map((row) => row.map(text));
  if (!stream.isTTY) return [head, ...cells].map((row) => row.join('\t')).join('\n');
  const color = useColor(stream);
  // Each cell has one space of padding on either side; the borders take one column each, and one more.
  const widthOf = (cell: string) => Math.max(...cell.split('\n').map((line) => stringWidth(line)));
  const natural = head.map((title, column) => Math.max(widthOf(title), ...cells.map((row) => widthOf(row[column] ?? ''))) + 2);
  const longestWord = (cell: string) => Math.max(...cell.split(/\s+/).map((word) => stringWidth(word)));
  const titleFloors = head.map((title, column) => Math.min(natural[column]!, longestWord(title) + 2));
  // Words up to a short id's length stay whole where the terminal is wide enough for that.
  const wordFloors = titleFloors.map((floor, column) => Math.min(natural[column]!, Math.max(floor, Math.min(WHOLE_WORD, ...cells.map((row) => longestWord(row[column] ?? ''))) + 2)));
  const available = terminalWidth(stream) - (head.length + 1);
  const sum = (widths: number[]) => widths.reduce((total, width) => total + width, 0);
  const widths = sum(natural) <= available ? natural : fittedWidths(natural, sum(wordFloors) <= available ? wordFloors : titleFloors, available);
  const wrap = (cell: string, column: number) => wrapAnsi(cell, widths[column]! - 2, { hard: true });
  const table = new Table({
    head: head.map(wrap),
    colWidths: widths,
    style: { head: color ? ['cyan'] : [], border: color ? ['grey'] : [] },
  });
  table.push(...cells.map((row) => row.map(wrap)));
  return table.toString();
}

/**
 * Named values of one resource: `name  value` lines with the values aligned, each value wrapped to
 * the terminal's width under itself (as `gh issue view` shows a resource); `name<TAB>value` when piped.
 */
export function renderFields(fields: Array<[string, Cell]>, stream: NodeJS.WriteStream = process.stdout): string {
  if (!stream.isTTY) return fields.map(([name, value]) => `${name}\t${text(value)}`).join('\n');
  const color = useColor(stream);
  const nameWidth = Math.max(...fields.map(([name]) => stringWidth(name)));
  return fields
    .map(([name, value]) => {
      const label = name.padEnd(nameWidth + 2);
      const line = hangingLine(label, text(value), stream);
      return color ? `\u001b[2m${label}\u001b[22m${line.slice(label.length)}` : line;
    })
    .join('\n');
}

/**
 * The named values an answer carries, as `renderFields` shows them: a value that is missing, null
 * or empty gets no row, so that a field an implementation does not have is simply not shown.
 */
export function presentFields(fields: Array<[string, Cell]>, stream: NodeJS.WriteStream = process.stdout): string {
  const present = fields.filter(([, value]) => value !== null && value !== undefined && value !== '');
  return present.length ? renderFields(present, stream) : '';
}
