/**
 * What every `text2sql-ladder` subcommand shares: where it writes, how it ends, and the misuse rule.
 *
 * Exit status, for every command (src/exit-codes.ts): 0 when the command did its job (a run with
 * per-item problems included), 1 when it reports a failure it was asked to find (`check`: a rung
 * failed), 2 for misuse — an unknown flag, a bad or missing value, a file or folder that is not
 * what the flag needs — and 3 when the machine failed (a database that cannot be read, an engine
 * that cannot run) or a run ended with items it could not grade. Misuse prints one line on stderr,
 * `error: …` naming the flag or `file:line`, the expected and the received value, and never a
 * stack; an infrastructure fault prints one `error: …` line too. commander's own messages (unknown
 * option, missing required option, a value its parser rejected) follow the same rule, with the
 * command's `--help` named at the end of the line.
 */
import { CommanderError } from 'commander';
import type { Command } from 'commander';
import { isInfrastructureError, isMisuseError } from '../errors.js';
import { EXIT_INCOMPLETE, EXIT_MISUSE } from '../exit-codes.js';
import { escapeControls, oneLine } from '../format.js';

export { oneLine } from '../format.js';

/** Where a command reads and writes (injectable for tests). */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: {
    write(text: string): unknown;
    readonly isTTY?: boolean;
    /** The terminal itself, for a progress bar that moves the cursor (absent: `stderr` is the stream). */
    readonly terminal?: NodeJS.WritableStream;
  };
}

/** Exit status of misuse (src/exit-codes.ts holds the whole rule). */
export const MISUSE_EXIT_CODE = EXIT_MISUSE;

/**
 * Exit status of an infrastructure fault (`INFRASTRUCTURE_CODES` in src/errors.ts: an engine that
 * cannot run at all — no PostgreSQL server reachable, a wrong password, a server older than the
 * minimum, a private server that cannot start — or a database that cannot be used): neither the
 * SQL's nor the command line's fault. The "incomplete" code of src/exit-codes.ts.
 */
export const ENGINE_EXIT_CODE = EXIT_INCOMPLETE;

interface CliState {
  readonly io: CliIo;
  code: number | undefined;
}

const states = new WeakMap<Command, CliState>();

function root(command: Command): Command {
  let current = command;
  while (current.parent) current = current.parent;
  return current;
}

/**
 * The process's own streams, behind the one escaping rule (format.ts `escapeControls`, newlines
 * kept): whatever a command prints — a file's content, a model's SQL, SQLite's words — reaches the
 * terminal with no control character it would act on. JSON output is unchanged by it (its escapes
 * are JSON's own). Only the progress bar draws on the terminal directly (`stderr.terminal`).
 */
export function processIo(): CliIo {
  const escaping = (stream: NodeJS.WriteStream): { write(text: string): boolean } => ({ write: (text: string) => stream.write(escapeControls(text, { keepNewlines: true })) });
  return {
    stdout: escaping(process.stdout),
    stderr: { ...escaping(process.stderr), isTTY: process.stderr.isTTY === true, terminal: process.stderr },
  };
}

/** Attaches `io` to a program (its subcommands find it through {@link cliIoOf}). */
export function attachCliIo(program: Command, io: CliIo): void {
  states.set(program, { io, code: undefined });
}

/** The io of the program a command belongs to (the process streams when none was attached). */
export function cliIoOf(command: Command): CliIo {
  return states.get(root(command))?.io ?? processIo();
}

/** Records a command's exit status (also as `process.exitCode` when no io was attached). */
export function setExitCode(command: Command, code: number): void {
  const state = states.get(root(command));
  if (state) state.code = code;
  else process.exitCode = code;
}

/** The exit status a subcommand recorded, if any. */
export function exitCodeOf(program: Command): number | undefined {
  return states.get(program)?.code;
}

/**
 * The group command `name` of the program (e.g. `fixtures`), created with `description` on first
 * use: modules that add a subcommand to the same group each call it.
 */
export function commandGroup(program: Command, name: string, description: string): Command {
  return program.commands.find((command) => command.name() === name) ?? program.command(name).description(description);
}

/** `text2sql-ladder spider`: the command's name with its parents'. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}

/**
 * The misuse rule on one command (call it on the program and on each subcommand): commander errors
 * throw instead of exiting, and print as one line naming the command's `--help`.
 */
export function applyCliConventions(command: Command): Command {
  return command
    .exitOverride()
    .showHelpAfterError(false)
    .configureOutput({
      writeOut: (text) => cliIoOf(command).stdout.write(text),
      writeErr: (text) => cliIoOf(command).stderr.write(text),
      outputError: (text, write) => write(`${oneLine(text)} (${commandPath(command)} --help lists the options)\n`),
    });
}

/**
 * Turns what a command threw into its exit status: commander's help / version exits (0), its
 * usage errors (2; commander printed the line), the library's misuse errors (2, one line on
 * stderr) and infrastructure faults (3, one line: {@link ENGINE_EXIT_CODE}; a database that cannot
 * be read, an engine or a server that cannot run). Anything else is a bug and is rethrown (Node
 * prints its stack).
 */
export function exitCodeForError(error: unknown, io: CliIo): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : MISUSE_EXIT_CODE;
  if (isMisuseError(error)) {
    io.stderr.write(`error: ${misuseMessage(error.message)}\n`);
    return MISUSE_EXIT_CODE;
  }
  if (isInfrastructureError(error)) {
    io.stderr.write(`error: ${misuseMessage(error.message)}\n`);
    return ENGINE_EXIT_CODE;
  }
  throw error;
}

/**
 * A misuse message as printed: its first line as it is; indented hint lines (`  expected …`,
 * `  hint: …`) kept below it, so the error itself is one line.
 */
export function misuseMessage(message: string): string {
  const [first, ...rest] = message.split('\n');
  return [oneLine(first ?? ''), ...rest.map((line) => `  ${line.trim()}`).filter((line) => line.trim() !== '')].join('\n');
}
