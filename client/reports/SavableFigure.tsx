import { useRef, type ReactNode } from 'react';
import { download } from '../studio/api';

/**
 * A shared figure (figures/) with a button that saves it: the SVG on screen is a standalone
 * document (namespace, fonts and colours as attributes), so its markup is the file.
 */
export function SavableFigure({ file, what, children }: { file: string; what: string; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const save = () => {
    const svg = box.current?.querySelector('svg');
    if (svg) download(`${file}.svg`, new XMLSerializer().serializeToString(svg), 'image/svg+xml');
  };
  return (
    <figure className="dash-figure">
      <div ref={box}>{children}</div>
      <button type="button" className="link small" onClick={save}>{`Save the ${what} figure (SVG)`}</button>
    </figure>
  );
}
