/**
 * Splits playground source into top-level statements with acorn, so each statement runs (and
 * reports its value, output and errors) on its own, the way mongosh answers line by line. A syntax
 * error anywhere stops everything before anything runs, and names its line and column.
 */
import { parse, type Node, type Program } from 'acorn';

export interface Statement {
  /** The statement's text, exactly as written (comments between statements are dropped). */
  source: string;
  /** 1-based line and 1-based column of the first character, relative to the source given. */
  line: number;
  column: number;
  /** 1-based line of the last character. */
  endLine: number;
  /**
   * A top-level function declaration. JavaScript instantiates these before the script's first
   * statement runs, so the session runs them first too: `f(); function f() {}` works as in a file.
   */
  hoisted: boolean;
}

/** A syntax error with 1-based line and column (acorn reports 0-based columns). */
export class ShellSyntaxError extends Error {
  constructor(
    /** acorn's message without its "(line:column)" suffix. */
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${reason} (line ${line}, column ${column})`);
    this.name = 'SyntaxError';
  }
}

interface AcornSyntaxError extends SyntaxError {
  loc?: { line: number; column: number };
}

/** Parse `source` as a classic script (mongosh snippets are scripts; no top-level await). */
export function splitStatements(source: string): Statement[] {
  let program: Program;
  try {
    program = parse(source, {
      ecmaVersion: 'latest',
      sourceType: 'script',
      allowAwaitOutsideFunction: false,
      allowReturnOutsideFunction: false,
      allowHashBang: true,
      locations: true,
    });
  } catch (err) {
    const e = err as AcornSyntaxError;
    if (e instanceof SyntaxError && e.loc) {
      throw new ShellSyntaxError(e.message.replace(/ \(\d+:\d+\)$/, ''), e.loc.line, e.loc.column + 1);
    }
    throw err;
  }
  return program.body.map((node) => toStatement(source, node));
}

function toStatement(source: string, node: Node): Statement {
  const loc = node.loc!;
  return {
    source: source.slice(node.start, node.end),
    line: loc.start.line,
    column: loc.start.column + 1,
    endLine: loc.end.line,
    hoisted: node.type === 'FunctionDeclaration',
  };
}
