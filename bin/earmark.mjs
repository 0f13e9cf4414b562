#!/usr/bin/env node
/**
 * earmark <command> [arguments]: every Earmark command, compiled (bin/build.mjs builds dist/node/
 * first when a source changed). `npm start` and `npm run <command>` come here too.
 */
import module from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { COMMANDS, commandBundle, ensureBuilt, root } from './build.mjs';

const USAGE = `usage: earmark <command> [arguments]   (earmark <command> --help: its own usage)
  start      serve the studies, the studio and the reports (npm start)
  analyze    the report of an export bundle (directory or .zip)
  simulate   write a bundle from known truth
  captions   a describe study's texts as a MetaSet caption file
  manifest   import and list audio clips, captions and judge scores
  study      list | validate | build | open | pause | close | export a study
  export     write a study's bundle
  admin      researcher and analyst tokens
  backup     an online copy of the database
  plan       listeners and votes a study needs, from a pilot bundle`;

const [command, ...args] = process.argv.slice(2);
if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
  (command === undefined ? console.error : console.log)(USAGE);
  process.exit(command === undefined ? 2 : 0);
}
if (!Object.hasOwn(COMMANDS, command)) {
  console.error(`unknown command ${command}\n${USAGE}`);
  process.exit(2);
}
// Node ≥ 22.1 keeps the compiled bytecode of the bundles between runs.
module.enableCompileCache?.();
await ensureBuilt();
// The bundle runs as its source would: a command that checks whether it is the main module sees its source path.
process.argv = [process.argv[0], join(root, COMMANDS[command]), ...args];
await import(pathToFileURL(commandBundle(command)).href);
