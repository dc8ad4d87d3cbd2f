/**
 * The MCP server's engines: one of its own (in memory, or kept in a `--data DIR` folder), and a
 * new in-memory engine for every ttl_explain_index / ttl_simulate call, all in this process through
 * the same Backend the extension's engine host runs. Source paths are read relative to `cwd`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeText } from '../../analysis';
import { EmbeddedBackend } from '../../extension/backend/embedded-backend';
import type { EngineSettings } from '../../extension/backend/backend';
import type { ToolHost, ToolSettings } from '../host';
import { ToolError } from '../input';

export interface EmbeddedToolHostOptions {
  data?: string;
  now?: Date;
  flavor?: 'mongodb' | 'cosmos';
  serverVersion?: '8.0' | '7.0';
  cwd: string;
  settings: ToolSettings;
  /** With `data`: why the folder is only read (no lock, nothing written; the engine refuses writes). */
  readOnly?: string;
}

export class EmbeddedToolHost implements ToolHost {
  private backend: EmbeddedBackend | undefined;
  readonly analyze = analyzeText;

  constructor(private readonly options: EmbeddedToolHostOptions) {}

  /** Opens the engine now (a data folder's problems show at start, not at the first call). */
  open(): EmbeddedBackend {
    this.backend ??= new EmbeddedBackend(
      {
        clock: 'virtual',
        flavor: this.options.flavor ?? 'mongodb',
        serverVersion: this.options.serverVersion ?? '8.0',
      },
      {
        ...(this.options.now ? { startMs: this.options.now.getTime() } : {}),
        ...(this.options.data !== undefined ? { dataDir: path.resolve(this.options.data) } : {}),
        ...(this.options.readOnly !== undefined ? { readOnly: this.options.readOnly } : {}),
      },
    );
    return this.backend;
  }

  engine(): Promise<EmbeddedBackend> {
    return Promise.resolve(this.open());
  }

  scratch(settings: Partial<EngineSettings>, startMs: number): Promise<EmbeddedBackend> {
    return Promise.resolve(new EmbeddedBackend(settings, { startMs }));
  }

  readSource(file: string): Promise<{ text: string; name: string }> {
    const full = path.resolve(this.options.cwd, file);
    try {
      return Promise.resolve({ text: fs.readFileSync(full, 'utf8'), name: full });
    } catch (err) {
      throw new ToolError(
        `ttl_check_definitions: cannot read ${full} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); paths are relative to ${this.options.cwd}, or pass the text as 'code'.`,
      );
    }
  }

  settings(): ToolSettings {
    return this.options.settings;
  }

  dispose(): void {
    this.backend?.dispose();
    this.backend = undefined;
  }
}
