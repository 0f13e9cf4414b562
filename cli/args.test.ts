import { expect, it } from 'vitest';
import { commandLine, HelpRequested, UsageError } from './args';

const options = { 'min-listener-correlation': { type: 'string' }, seed: { type: 'string', short: 's' }, json: { type: 'boolean' } } as const;

it('takes a negative number as the value of a string option, spaced or with =, long or short', () => {
  expect(commandLine(['b', '--min-listener-correlation', '-0.2'], options).values['min-listener-correlation']).toBe('-0.2');
  expect(commandLine(['--min-listener-correlation=-0.2', 'b'], options).values['min-listener-correlation']).toBe('-0.2');
  expect(commandLine(['-s', '-3', 'b'], options).values.seed).toBe('-3');
  expect(commandLine(['--seed', '-.5'], options).values.seed).toBe('-.5');
  expect(commandLine(['--seed', '-1e-3'], options).values.seed).toBe('-1e-3');
  // Not after a boolean, and not an option that happens to follow a string option.
  expect(() => commandLine(['--json', '-3'], options)).toThrow(UsageError);
  expect(() => commandLine(['--seed', '--json'], options)).toThrow(UsageError);
  expect(commandLine(['--', '--seed', '-3'], options).positionals).toEqual(['--seed', '-3']);
});

it('--help and -h ask for the usage, before any other check; after -- they are positionals', () => {
  expect(() => commandLine(['--nonsense', '--help'], options)).toThrow(HelpRequested);
  expect(() => commandLine(['-h'], options)).toThrow(HelpRequested);
  expect(commandLine(['--', '-h'], options).positionals).toEqual(['-h']);
  expect(() => commandLine(['--nonsense'], options)).toThrow(/Unknown option '--nonsense'/);
});
