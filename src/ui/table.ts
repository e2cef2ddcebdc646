import { stringWidth, wrapAnsi } from './text-width.js';
import { terminalText } from './terminal-text.js';
import type { Output } from './io.js';

/** Text made for the terminal by svc itself (escaped, then coloured): shown as it is. */
export class Styled {
  constructor(readonly text: string) {}
}

export type Cell = string | number | boolean | null | undefined | Styled;

/**
 * A column of a table for people. `leaveOut` ranks the columns a narrow terminal may do without,
 * the lowest left out first; `freeText` marks prose, URLs and lists, which read well narrowed to
 * a few words a line. No word is ever broken: an id, a path, a URL or a setting name is copied whole.
 */
export interface Column {
  title: string;
  leaveOut?: number;
  freeText?: boolean;
  /** Cells are never wrapped, not even between words (short labels such as "* default"). */
  unbroken?: boolean;
  /** Colour for a cell's laid-out text, where colour is shown. */
  style?: (text: string) => string;
}

/** A cell's text, escaped: values come from API answers and deliveries. */
function text(cell: Cell): string {
  if (cell instanceof Styled) return cell.text;
  return cell === null || cell === undefined ? '' : terminalText(String(cell));
}

/**
 * A line for people, wrapped to the terminal's width with its continuation lines indented under
 * the text that follows `prefix` (a bullet, a label); left whole when not on a terminal.
 */
export function hangingLine(prefix: string, value: string, out: Output): string {
  return out.isTTY ? hangingText(prefix, value, out.columns) : `${prefix}${value}`;
}

/**
 * `prefix` and `value` wrapped between words to `columns` cells, the continuation lines indented
 * under the text that follows `prefix`. A word is never broken: one too long for the room beside
 * the prefix (a path, a URL) goes where a line with less indentation takes it whole, and one longer
 * than a whole line has a line of its own, wider than the terminal (as gh leaves a long URL).
 */
export function hangingText(prefix: string, value: string, columns: number): string {
  const indent = stringWidth(prefix);
  const room = Math.max(20, columns - indent);
  const longest = Math.max(0, ...value.split(' ').map((word) => stringWidth(word)));
  if (longest <= room) {
    const lines = wrapAnsi(value, room, { hard: true }).split('\n');
    return [`${prefix}${lines[0] ?? ''}`, ...lines.slice(1).map((line) => `${' '.repeat(indent)}${line}`)].join('\n');
  }
  // The words that fit go beside the prefix, the rest hang further left, as far as the longest word needs.
  const hang = Math.max(0, columns - longest);
  const words = value.split(' ');
  let first = 0;
  while (first < words.length && stringWidth(words.slice(0, first + 1).join(' ')) <= room) first++;
  const head = `${prefix}${words.slice(0, first).join(' ')}`.trimEnd();
  const rest = wrapAnsi(words.slice(first).join(' '), Math.max(1, columns - hang)).split('\n');
  // A line that would hold no more than indentation is left out.
  return [...(head ? [head] : []), ...rest.map((line) => `${' '.repeat(hang)}${line}`)].join('\n');
}

/**
 * A line for people as it fits the terminal's width: left as it is when it fits (or not on a
 * terminal), else wrapped between words, its continuation lines indented under the text that
 * follows the line's last column gap (two spaces or more) in its first half, or under its own
 * indentation: `PASS  check_name  a long detail` goes on under `a long detail`.
 */
export function fittedLine(line: string, out: Output): string {
  if (!out.isTTY) return line;
  const width = out.columns;
  if (stringWidth(line) <= width) return line;
  const gaps = [...line.matchAll(/^ +| {2,}(?=\S)/g)].map((gap) => gap.index + gap[0].length).filter((end) => stringWidth(line.slice(0, end)) <= width / 2);
  const split = gaps.at(-1) ?? 0;
  return hangingLine(line.slice(0, split), line.slice(split), out);
}

/** Lines for people, each as `fittedLine` fits it. */
export function fittedText(text: string, out: Output): string {
  return text
    .split('\n')
    .map((line) => fittedLine(line, out))
    .join('\n');
}

/** Space between two columns. */
const GAP = '  ';
/** The least room free text is given before columns a narrow terminal can do without are left out. */
const FREE_TEXT_ROOM = 24;

const sum = (widths: number[]) => widths.reduce((total, width) => total + width, 0);
const longestWord = (cell: string) => Math.max(0, ...cell.split(/\s+/).map((word) => stringWidth(word)));

/** Widths from `floors` up to `natural`, `spare` columns more in all, shared in proportion to what each lacks. */
function grown(natural: number[], floors: number[], spare: number): number[] {
  const lacking = natural.map((width, index) => width - floors[index]!);
  const wanted = sum(lacking);
  if (wanted <= spare) return [...natural];
  const widths = floors.map((floor, index) => floor + Math.floor((spare * lacking[index]!) / wanted));
  let left = spare - sum(widths) + sum(floors);
  // What rounding left goes to the columns that lack the most.
  for (const index of lacking.map((_, index) => index).sort((a, b) => lacking[b]! - lacking[a]!)) {
    if (left === 0) break;
    widths[index]! += 1;
    left -= 1;
  }
  return widths;
}

/**
 * Column widths that fit `available`, each at least its floor: the room beyond the floors goes
 * first to the columns of names and values, then to free text, which reads well at any width.
 */
function fittedWidths(natural: number[], floors: number[], freeText: boolean[], available: number): number[] {
  const spare = available - sum(floors);
  if (spare <= 0) return [...floors];
  const firstNatural = natural.map((width, index) => (freeText[index] ? floors[index]! : width));
  const first = grown(firstNatural, floors, spare);
  return grown(natural, first, spare - sum(first) + sum(floors));
}

/**
 * The columns shown at `width`: those a narrow terminal may do without are left out, lowest rank
 * first, until the rest fit in `room` (words whole, free text given room to read).
 */
function shownColumns(columns: Column[], room: number[], width: number): number[] {
  let shown = columns.map((_, index) => index);
  const fits = () => sum(shown.map((index) => room[index]!)) + GAP.length * (shown.length - 1) <= width;
  const ranked = shown.filter((index) => columns[index]!.leaveOut !== undefined).sort((a, b) => columns[a]!.leaveOut! - columns[b]!.leaveOut!);
  for (const index of ranked) {
    if (fits()) break;
    shown = shown.filter((kept) => kept !== index);
  }
  return shown;
}

/** One row in its columns' widths: each cell wrapped inside its column (and styled, given `styles`), as many lines as its tallest cell. */
function layRow(row: string[], widths: number[], styles?: Array<(part: string) => string>): string[] {
  const wrapped = row.map((cell, column) => wrapAnsi(cell, Math.max(1, widths[column]!), { hard: true }).split('\n'));
  const height = Math.max(...wrapped.map((lines) => lines.length));
  return Array.from({ length: height }, (_, line) =>
    wrapped
      .map((lines, column) => {
        const part = lines[line] ?? '';
        return (styles && part ? styles[column]!(part) : part) + ' '.repeat(Math.max(0, widths[column]! - stringWidth(part)));
      })
      .join(GAP)
      .trimEnd(),
  );
}

/**
 * A table for people on a terminal, as `gh` and `kubectl` draw them: titles in capitals, columns
 * two spaces apart, no wider than the terminal (long cells wrap between words inside their column,
 * and columns ranked with `leaveOut` are left out, with a note, where the terminal is too narrow for
 * them). Where even so a word (a path, a URL) does not fit whole, each row is shown as a block of
 * named values instead. Tab-separated lines, every column, when stdout is piped, so that `cut` and
 * `awk` can take it apart.
 */
export function renderTable(head: Array<string | Column>, rows: Cell[][], out: Output): string {
  const columns = head.map((column) => (typeof column === 'string' ? { title: column } : column));
  const tableCells = rows.map((row) => columns.map((_, index) => text(row[index])));
  if (!out.isTTY) return [columns.map((column) => column.title), ...tableCells].map((row) => row.join('\t')).join('\n');
  // On a terminal, a column no row has a value for says nothing: it gives its room to the others.
  const filled = columns.map((_, index) => tableCells.length === 0 || tableCells.some((row) => row[index] !== ''));
  if (filled.includes(false)) {
    const keep = <T>(values: T[]) => values.filter((_, index) => filled[index]);
    return renderTable(
      keep(head),
      rows.map((row) => keep(columns.map((_, index) => row[index]))),
      out,
    );
  }
  const cells = tableCells;
  const titles = columns.map((column) => column.title.toUpperCase());
  const cellWidth = (cell: string) => Math.max(0, ...cell.split('\n').map((line) => stringWidth(line)));
  const natural = titles.map((title, column) => Math.max(cellWidth(title), ...cells.map((row) => cellWidth(row[column]!))));
  const floors = columns.map((column, index) => {
    if (column.unbroken) return natural[index]!;
    return Math.max(longestWord(titles[index]!), ...cells.map((row) => longestWord(row[index]!)));
  });
  const width = out.columns;
  const room = columns.map((column, index) => (column.freeText ? Math.max(floors[index]!, Math.min(natural[index]!, FREE_TEXT_ROOM)) : floors[index]!));
  const shown = shownColumns(columns, room, width);
  const available = width - GAP.length * (shown.length - 1);
  const pick = <T>(values: T[]) => shown.map((index) => values[index]!);
  if (sum(pick(floors)) > available) return renderRecords(columns, cells, out);
  const widths =
    sum(pick(natural)) <= available
      ? pick(natural)
      : fittedWidths(
          pick(natural),
          pick(floors),
          pick(columns).map((column) => Boolean(column.freeText)),
          available,
        );
  const color = out.color;
  const styles = pick(columns).map((column) => (color && column.style) || ((part: string) => part));
  const header = layRow(pick(titles), widths).map((line) => (color ? `\u001b[1m${line}\u001b[22m` : line));
  const body = cells.map((row) => layRow(pick(row), widths, styles));
  // Rows that take several lines are set apart, so that each reads as one.
  const separated = body.some((lines) => lines.length > 1);
  const lines = [...header, ...body.flatMap((row, index) => (separated && index > 0 ? ['', ...row] : row))];
  const left = columns.filter((_, index) => !shown.includes(index)).map((column) => column.title);
  if (left.length) {
    const note = `(${left.join(', ')} left out at ${width} columns: a wider terminal or --json shows ${left.length === 1 ? 'it' : 'them'})`;
    lines.push(hangingLine('', color ? `\u001b[2m${note}\u001b[22m` : note, out));
  }
  return lines.join('\n');
}

/**
 * A table whose words do not fit the terminal whole, even without the columns it may leave out: each
 * row a block of `title  value` lines, every column, blocks a line apart, as `renderFields` shows them.
 */
function renderRecords(columns: Column[], cells: string[][], out: Output): string {
  // Every block's values start in the same column.
  const titleWidth = Math.max(...columns.map((column) => stringWidth(column.title)));
  const field = (column: Column, cell: string): [string, Cell] => [
    column.title.padEnd(titleWidth),
    new Styled(out.color && column.style ? column.style(cell) : cell),
  ];
  return cells
    .map((row) =>
      renderFields(
        columns.flatMap((column, index) => (row[index] ? [field(column, row[index])] : [])),
        out,
      ),
    )
    .join('\n\n');
}

/**
 * Named values of one resource: `name  value` lines with the values aligned, each value wrapped to
 * the terminal's width under itself (as `gh issue view` shows a resource); `name<TAB>value` when piped.
 */
export function renderFields(fields: Array<[string, Cell]>, out: Output): string {
  if (!out.isTTY) return fields.map(([name, value]) => `${name}\t${text(value)}`).join('\n');
  const color = out.color;
  const nameWidth = Math.max(...fields.map(([name]) => stringWidth(name)));
  return fields
    .map(([name, value]) => {
      const label = name.padEnd(nameWidth + 2);
      const line = hangingLine(label, text(value), out);
      return color ? `\u001b[2m${label}\u001b[22m${line.slice(label.length)}` : line;
    })
    .join('\n');
}

/**
 * The named values an answer carries, as `renderFields` shows them: a value that is missing, null
 * or empty gets no row, so that a field an implementation does not have is simply not shown.
 */
export function presentFields(fields: Array<[string, Cell]>, out: Output): string {
  const present = fields.filter(([, value]) => value !== null && value !== undefined && value !== '');
  return present.length ? renderFields(present, out) : '';
}
