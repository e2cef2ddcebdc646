import { describe, expect, it } from 'vitest';
import { markdownText } from '../../src/ui/markdown-text.js';

describe('markdownText', () => {
  it('leaves letters, digits and spaces as they are', () => {
    expect(markdownText('needs a read only key 42')).toBe('needs a read only key 42');
  });

  it('escapes what Markdown acts on: emphasis, links, images, HTML, table cells, headings, code', () => {
    expect(markdownText('*a* [b](c) ![d](e) <img src=x> | # `f` ~g~ _h_')).toBe(
      '\\*a\\* \\[b\\]\\(c\\) \\!\\[d\\]\\(e\\) \\<img src\\=x\\> \\| \\# \\`f\\` \\~g\\~ \\_h\\_',
    );
  });

  it('escapes the characters of autolinks and of workflow commands', () => {
    expect(markdownText('https://evil.example www.evil.example a@b.example')).toBe('https\\:\\/\\/evil\\.example www\\.evil\\.example a\\@b\\.example');
    expect(markdownText('::error::forged')).toBe('\\:\\:error\\:\\:forged');
  });

  it('shows line breaks, escape sequences and NUL as their escapes, which cannot end the line or act on a viewer', () => {
    const shown = markdownText('a\r\n::warning::b\u001b[31mc\u0000d');
    expect(shown).toBe('a\\\\r\\\\n\\:\\:warning\\:\\:b\\\\u001b\\[31mc\\\\u0000d');
    expect(shown).not.toMatch(/[\u0000-\u001f]/);
  });

  it('escapes a backslash of its own, so that it cannot escape what follows', () => {
    expect(markdownText('\\|')).toBe('\\\\\\|');
  });
});
