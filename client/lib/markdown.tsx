/**
 * The small Markdown subset study texts use (paragraphs, headings, lists, **bold**, *italic*,
 * `code`, [links](https://…)), rendered to React elements: no HTML string is ever injected, so a
 * study text cannot run script.
 */
import { Fragment, type ReactNode } from 'react';

const INLINE = /(\*\*[^*]+\*\*|\*[^*]+\*|_[^_]+_|`[^`]+`|\[[^\]]+\]\([^)\s]+\))/g;

function inline(text: string, key: string): ReactNode[] {
  return text.split(INLINE).map((part, i) => {
    const k = `${key}.${i}`;
    if (part.startsWith('**') && part.endsWith('**') && part.length > 4) return <strong key={k}>{part.slice(2, -2)}</strong>;
    if (/^(\*[^*]+\*|_[^_]+_)$/.test(part)) return <em key={k}>{part.slice(1, -1)}</em>;
    if (/^`[^`]+`$/.test(part)) return <code key={k}>{part.slice(1, -1)}</code>;
    const link = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(part);
    if (link) {
      const safe = /^(https?:|mailto:)/i.test(link[2]);
      return safe ? (
        <a key={k} href={link[2]} target="_blank" rel="noreferrer noopener">
          {link[1]}
        </a>
      ) : (
        <Fragment key={k}>{link[1]}</Fragment>
      );
    }
    return <Fragment key={k}>{part}</Fragment>;
  });
}

export function Markdown({ text, className }: { text: string; className?: string }) {
  const blocks = text.replace(/\r\n?/g, '\n').trim().split(/\n\s*\n/);
  return (
    <div className={className ?? 'prose'}>
      {blocks.map((block, b) => {
        const lines = block.split('\n');
        const key = String(b);
        const heading = /^(#{1,4})\s+(.*)$/.exec(lines[0]);
        if (heading && lines.length === 1) {
          const level = Math.min(4, heading[1].length + 1);
          const Tag = `h${level}` as 'h2' | 'h3' | 'h4';
          return <Tag key={key}>{inline(heading[2], key)}</Tag>;
        }
        if (lines.every((l) => /^\s*[-*]\s+/.test(l)))
          return <ul key={key}>{lines.map((l, i) => <li key={i}>{inline(l.replace(/^\s*[-*]\s+/, ''), `${key}.${i}`)}</li>)}</ul>;
        if (lines.every((l) => /^\s*\d+[.)]\s+/.test(l)))
          return <ol key={key}>{lines.map((l, i) => <li key={i}>{inline(l.replace(/^\s*\d+[.)]\s+/, ''), `${key}.${i}`)}</li>)}</ol>;
        return <p key={key}>{inline(lines.join(' '), key)}</p>;
      })}
    </div>
  );
}
