// The server's commands parse their arguments like every other command (cli/args.ts).
export { commandLine, HelpRequested, runCommand, UsageError } from '../../cli/args';
