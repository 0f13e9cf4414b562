import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Markdown } from './markdown';

const html = (text: string) => renderToStaticMarkup(<Markdown text={text} />);

describe('Markdown', () => {
  it('renders paragraphs, headings, lists and inline marks', () => {
    expect(html('# Title\n\nOne **bold** and *it* and `c`.\n\n- a\n- b\n\n1. x\n2. y')).toBe(
      '<div class="prose"><h2>Title</h2><p>One <strong>bold</strong> and <em>it</em> and <code>c</code>.</p>' +
        '<ul><li>a</li><li>b</li></ul><ol><li>x</li><li>y</li></ol></div>',
    );
  });

  it('never injects HTML and drops non-http links', () => {
    const out = html('<img src=x onerror=alert(1)> [x](javascript:alert(1)) [ok](https://example.org)');
    expect(out).toContain('&lt;img');
    expect(out).not.toContain('javascript:');
    expect(out).toContain('<a href="https://example.org" target="_blank" rel="noreferrer noopener">ok</a>');
  });
});
