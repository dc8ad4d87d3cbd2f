/** `ttl-workbench`: run mongosh playgrounds headless (see --help). Exit codes: 0 ok, 1 error, 2 usage. */
import { HELP, parseArgs, UsageError } from './args';
import { checkPaths, formatJson, formatText } from './check';
import { PathError } from './check-files';
import { mcpCommand } from './mcp';
import { runFile } from './run-file';
import { serveCommand } from './serve';
import { salvageCommand, verifyCommand } from './verify';

declare const TTL_WORKBENCH_VERSION: string | undefined;

function main(argv: string[]): number | Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`ttl-workbench: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (parsed.command === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (parsed.command === 'version') {
    process.stdout.write(`${typeof TTL_WORKBENCH_VERSION === 'string' ? TTL_WORKBENCH_VERSION : 'dev'}\n`);
    return 0;
  }
  if (parsed.command === 'check') {
    try {
      const outcome = checkPaths(parsed.options, process.cwd());
      process.stdout.write(parsed.options.json ? formatJson(outcome) : formatText(outcome));
      return outcome.errors > 0 ? 1 : 0;
    } catch (e) {
      if (!(e instanceof PathError)) throw e;
      process.stderr.write(`ttl-workbench check: ${e.message}\n`);
      return 2;
    }
  }
  const write = (t: string) => process.stdout.write(t);
  const writeErr = (t: string) => process.stderr.write(t);
  if (parsed.command === 'serve') return serveCommand(parsed.options, write, writeErr);
  if (parsed.command === 'verify') return verifyCommand(parsed.options, write, writeErr);
  if (parsed.command === 'salvage') return salvageCommand(parsed.options, write, writeErr);
  if (parsed.command === 'mcp')
    return mcpCommand(
      parsed.options,
      typeof TTL_WORKBENCH_VERSION === 'string' ? TTL_WORKBENCH_VERSION : 'dev',
      writeErr,
    );
  for (const file of parsed.options.files) {
    const outcome = runFile(file, parsed.options, write, writeErr);
    if (!outcome.ok) return 1;
  }
  return 0;
}

// `ttl-workbench run x | head` closes the pipe early: that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

const code = main(process.argv.slice(2));
if (typeof code === 'number') process.exitCode = code;
else
  void code.then((c) => {
    // serve ends here: its sockets and timers are closed, and nothing else should hold the process.
    process.exitCode = c;
    process.exit(c);
  });
