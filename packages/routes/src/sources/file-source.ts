import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { RouteListError } from '../route-list-error.js';
import { parseRoutesText } from './parse-routes-text.js';
import type { RouteSource } from './route-source.js';
import { watchFile } from './watch-file.js';

export interface FileSourceOptions {
  /** Follow changes on disk. */
  readonly watch: boolean;
  readonly debounceMs: number;
  readonly onWatchError: (err: Error) => void;
}

/**
 * A routes file (JSON or YAML). A change notification is sent only when the bytes on disk
 * differ from those last loaded, so unrelated directory events and editors that touch
 * without changing cost one read and no reload.
 */
export class FileSource implements RouteSource {
  readonly name: string;
  private lastText: string | undefined;

  constructor(
    file: string,
    private readonly options: FileSourceOptions,
  ) {
    this.name = path.resolve(file);
  }

  async load(): Promise<unknown> {
    const text = await this.read();
    this.lastText = text;
    return parseRoutesText(this.name, text);
  }

  subscribe(changed: () => void): () => void {
    if (!this.options.watch) return () => {};
    return watchFile(
      this.name,
      () => {
        readFile(this.name, 'utf8').then(
          (text) => {
            if (text !== this.lastText) changed();
          },
          // Gone or unreadable: let load() report it (a rename-replace has settled by now).
          () => {
            if (this.lastText !== undefined) changed();
          },
        );
      },
      { debounceMs: this.options.debounceMs, onError: this.options.onWatchError },
    );
  }

  private async read(): Promise<string> {
    try {
      return await readFile(this.name, 'utf8');
    } catch (err) {
      this.lastText = undefined;
      const reason =
        (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message;
      throw new RouteListError([{ source: this.name, rule: 'read', message: reason }]);
    }
  }
}
