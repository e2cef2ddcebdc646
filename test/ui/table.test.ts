/**
 * How tables and long lines fit a terminal: checked against layouts worked out by hand, column by
 * column, at given widths. Streams are stand-ins that say whether they are a terminal and how wide;
 * colour is off (NO_COLOR) except where the test is about it.
 */
import { describe, expect, it } from 'vitest';
import { Output } from '../../src/ui/io.js';
import { fittedLine, fittedText, renderFields, renderTable, Styled } from '../../src/ui/table.js';

function output(options: { isTTY: boolean; columns?: number; env?: NodeJS.ProcessEnv }): Output {
  return new Output({ isTTY: options.isTTY, columns: options.columns } as NodeJS.WriteStream, options.env ?? { NO_COLOR: '1' });
}

const terminal = (columns: number) => output({ isTTY: true, columns });
const piped = output({ isTTY: false });

describe('renderTable', () => {
  it('pipes tab-separated lines with every column and the titles as given', () => {
    expect(
      renderTable(
        ['id', 'status'],
        [
          ['rep_1', 'queued'],
          [null, true],
        ],
        piped,
      ),
    ).toBe('id\tstatus\nrep_1\tqueued\n\ttrue');
  });

  it('on a terminal, draws titles in capitals and columns two spaces apart at their natural width', () => {
    expect(renderTable(['id', 'status'], [['rep_1', 'completed']], terminal(80))).toBe(['ID     STATUS', 'rep_1  completed'].join('\n'));
  });

  it('takes 80 columns for a terminal that does not say its width', () => {
    const table = renderTable(['id', 'detail'], [['rep_1', `${'word '.repeat(20)}end`]], output({ isTTY: true }));
    expect(table.split('\n').every((line) => line.length <= 80)).toBe(true);
    expect(table.split('\n')).toHaveLength(3);
  });

  it('gives no room to a column no row has a value for', () => {
    expect(renderTable(['id', 'note'], [['rep_1', null]], terminal(80))).toBe('ID\nrep_1');
  });

  it('leaves out the lowest-ranked column first, until the rest fit, and says which', () => {
    const table = renderTable(
      ['id', { title: 'applicant', leaveOut: 1 }, { title: 'status', leaveOut: 2 }],
      [['rep_0123456789', 'app_0123456789', 'completed']],
      terminal(30),
    );
    // 14 + 14 + 9 and two gaps is 41: without the applicant, 14 + 2 + 9 = 25 fits in 30.
    expect(table).toBe(
      ['ID              STATUS', 'rep_0123456789  completed', '(applicant left out at 30', 'columns: a wider terminal or', '--json shows it)'].join('\n'),
    );
  });

  it('leaves out the next column too where one is not enough', () => {
    const table = renderTable(
      ['id', { title: 'applicant', leaveOut: 1 }, { title: 'status', leaveOut: 2 }],
      [['rep_0123456789', 'app_0123456789', 'completed']],
      terminal(20),
    );
    expect(table).toBe(['ID', 'rep_0123456789', '(applicant, status', 'left out at 20', 'columns: a wider', 'terminal or --json', 'shows them)'].join('\n'));
  });

  it('keeps an id whole and wraps free text in the room left, between words', () => {
    // Widths: the id its 14; the message its floor of 8 (its longest word) and all 6 spare columns.
    const table = renderTable(['id', { title: 'message', freeText: true }], [['rep_0123456789', 'the document could not be read at all']], terminal(30));
    expect(table).toBe(['ID              MESSAGE', 'rep_0123456789  the document', '                could not be', '                read at all'].join('\n'));
  });

  it('keeps a URL whole: a column takes its longest word, where the terminal has the room', () => {
    const table = renderTable(['id', { title: 'url', freeText: true }], [['rep_0123456789', 'see https://example.test/a/b/c/d/e/f/g']], terminal(50));
    expect(table.split('\n')).toEqual(['ID              URL', 'rep_0123456789  see', '                https://example.test/a/b/c/d/e/f/g']);
  });

  it('shows each row as a block of named values where a word does not fit whole, and one wider than the terminal on a line of its own', () => {
    const rows = [
      ['rep_0123456789', 'https://example.test/a/b/c/d/e/f/g'],
      ['rep_1', null],
    ];
    expect(renderTable(['id', { title: 'url', freeText: true }], rows, terminal(40)).split('\n')).toEqual([
      'id   rep_0123456789',
      'url  https://example.test/a/b/c/d/e/f/g',
      '',
      'id   rep_1',
    ]);
    expect(renderTable(['id', { title: 'url', freeText: true }], rows, terminal(30)).split('\n')).toEqual([
      'id   rep_0123456789',
      'url',
      'https://example.test/a/b/c/d/e/f/g',
      '',
      'id   rep_1',
    ]);
  });

  it('sets apart rows that take several lines', () => {
    const table = renderTable(
      ['id', { title: 'message', freeText: true }],
      [
        ['rep_1', 'one two three four five six seven'],
        ['rep_2', 'short'],
      ],
      terminal(24),
    );
    // id 5; message: 24 - 2 - 5 = 17 columns.
    expect(table).toBe(['ID     MESSAGE', 'rep_1  one two three', '       four five six', '       seven', '', 'rep_2  short'].join('\n'));
  });

  it('aligns East Asian wide characters by the two cells each takes', () => {
    expect(
      renderTable(
        ['name', 'id'],
        [
          ['山田太郎', 'app_1'],
          ['Ana', 'app_2'],
        ],
        terminal(80),
      ),
    ).toBe(['NAME      ID', '山田太郎  app_1', 'Ana       app_2'].join('\n'));
  });

  it("shows the escape sequences of a value as text, and counts none of svc's own colour as width", () => {
    const table = renderTable(
      ['status', 'id'],
      [
        [new Styled('\u001b[32mok\u001b[39m'), 'rep_1'],
        ['\u001b]52;c;x\u0007', 'rep_2'],
      ],
      terminal(80),
    );
    // The status column is as wide as the escaped value, 19 cells; the coloured "ok" takes 2 of them.
    expect(table).toBe([`STATUS${' '.repeat(15)}ID`, `\u001b[32mok\u001b[39m${' '.repeat(19)}rep_1`, '\\u001b]52;c;x\\u0007  rep_2'].join('\n'));
  });

  it('styles cells and bolds the titles where colour is shown', () => {
    const coloured = output({ isTTY: true, columns: 80, env: {} });
    const table = renderTable([{ title: 'status', style: (text) => `<${text}>` }], [['queued']], coloured);
    expect(table).toBe('\u001b[1mSTATUS\u001b[22m\n<queued>');
  });
});

describe('renderFields', () => {
  it('aligns values after the longest name, and wraps each under itself', () => {
    expect(
      renderFields(
        [
          ['id', 'rep_1'],
          ['purpose', 'a trip to see the family and some friends'],
        ],
        terminal(30),
      ),
    ).toBe(['id       rep_1', 'purpose  a trip to see the', '         family and some', '         friends'].join('\n'));
  });

  it('pipes name<TAB>value lines', () => {
    expect(renderFields([['id', 'rep_1']], piped)).toBe('id\trep_1');
  });
});

describe('fittedLine and fittedText', () => {
  const line = 'PASS  check_name  a long detail that goes on and on past the edge';

  it('leaves a line that fits, and any line when not on a terminal', () => {
    expect(fittedLine('PASS  check_name  short', terminal(40))).toBe('PASS  check_name  short');
    expect(fittedLine(line, piped)).toBe(line);
  });

  it('wraps a long line under the text after its last column gap in the first half', () => {
    expect(fittedLine(line, terminal(40))).toBe(
      ['PASS  check_name  a long detail that', '                  goes on and on past', '                  the edge'].join('\n'),
    );
  });

  it('wraps under its own indentation when it has no column gap', () => {
    expect(fittedLine('  one two three four five six seven eight nine ten', terminal(24))).toBe(
      ['  one two three four', '  five six seven eight', '  nine ten'].join('\n'),
    );
  });

  it('never breaks a word: a path too long for the room beside the gap hangs further left, one longer than the terminal has a line of its own', () => {
    const path = '/home/ops/deployments/production/billing-worker/new.key';
    expect(fittedLine(`✓ 2/7 save    saved its secret to ${path} (0600)`, terminal(60))).toBe(
      ['✓ 2/7 save    saved its secret to', `     ${path}`, '     (0600)'].join('\n'),
    );
    expect(fittedLine(`Error: no API key for https://127.0.0.1:8443${path}${path}, the base URL`, terminal(60))).toBe(
      ['Error: no API key for', `https://127.0.0.1:8443${path}${path},`, 'the base URL'].join('\n'),
    );
  });

  it('puts a line of one word longer than the terminal, a path, on the line as it is, with no empty line before it', () => {
    const path = `/srv/${'visa-report-service/'.repeat(4)}tls/cert.pem`;
    expect(fittedLine(path, terminal(60))).toBe(path);
    expect(fittedLine(`  ${path}`, terminal(60))).toBe(path);
  });

  it('fits each line of a text on its own', () => {
    expect(fittedText(`short\n${line}`, terminal(40))).toBe(
      ['short', 'PASS  check_name  a long detail that', '                  goes on and on past', '                  the edge'].join('\n'),
    );
  });
});
