import type { DefinitionProblem } from '../../contract/studio';

/** A refused definition: one row per problem, with its line:column and field. */
export function Problems({ problems, message }: { problems: DefinitionProblem[] | undefined; message: string }) {
  if (!problems?.length) return <p className="notice" role="alert">{message}</p>;
  return (
    <div className="problems" role="alert">
      <p className="notice">
        {problems.length} problem{problems.length === 1 ? '' : 's'}:
      </p>
      <ul data-testid="problems">
        {problems.map((p, i) => (
          <li key={i}>
            <code>
              {/* A source or audio file's problem names that file; study.yaml's only its line. */}
              {p.file.endsWith('study.yaml') ? '' : `${p.file} `}line {p.line}:{p.column}
            </code>{' '}
            <strong>{p.field || '(top level)'}</strong> — {p.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
