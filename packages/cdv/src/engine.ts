import { type FSWatcher, watch as watchDirectory } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { AppError, bool, defineConfig, duration, errorMessage, isAppError, oneOf, str } from '@rp/runtime';
import type { CdvOutcome, CdvRequest } from './outcome.ts';
import { type CdvLoadOptions, CdvTables, type CdvTablesVersion } from './tables.ts';

/** Why a reload ran. */
export type CdvReloadTrigger = 'manual' | 'watch';

export type CdvReloadEvent =
  | {
      readonly type: 'reloaded';
      readonly trigger: CdvReloadTrigger;
      /** The version now in force. */
      readonly version: CdvTablesVersion;
      readonly previous: CdvTablesVersion;
      /** False when both files have the same checksums as before (a touch, or a save without edits). */
      readonly changed: boolean;
    }
  | {
      readonly type: 'reload-failed';
      readonly trigger: CdvReloadTrigger;
      /** `CdvTableError` (CONFIG_INVALID, with line-numbered problems) or an unexpected error. */
      readonly error: AppError;
      /** The version still in force: a failed reload never replaces the tables. */
      readonly version: CdvTablesVersion;
    };

/** The file watcher itself failed (say, its directory was removed); reloads by `reload()` still work. */
export interface CdvWatchErrorEvent {
  readonly type: 'watch-error';
  readonly error: AppError;
}

export type CdvEngineEvent = CdvReloadEvent | CdvWatchErrorEvent;

export type CdvEngineListener = (event: CdvEngineEvent) => void;

export type CdvReloadListener = (event: CdvReloadEvent) => void;

export interface CdvEngineOptions extends CdvLoadOptions {
  /**
   * Called after every reload, good or bad, so a service can log the outcome and expose the version in
   * force (see `cdvVersionLabels`). The initial load is not a reload: read `engine.version` after start.
   */
  readonly onReload?: CdvReloadListener | undefined;
}

export interface CdvWatchOptions {
  /** Quiet time after the last file event before reloading, so replacing both files reloads once. */
  readonly debounceMs?: number;
}

/**
 * The long-lived CDV service object: verifies against the tables in force and swaps in new tables
 * without a restart. A swap is one reference assignment after the new files validated completely, so a
 * verification sees either the old tables or the new ones, never a mix, and a bad file never displaces
 * good tables.
 */
export class CdvEngine {
  readonly #options: CdvLoadOptions;
  readonly #listeners = new Set<CdvEngineListener>();
  #tables: CdvTables;
  #queue: Promise<unknown> = Promise.resolve();
  #watchers: FSWatcher[] = [];
  #debounce: NodeJS.Timeout | undefined;

  constructor(tables: CdvTables, options: CdvEngineOptions) {
    this.#tables = tables;
    this.#options = options;
    if (options.onReload !== undefined) this.onReload(options.onReload);
  }

  /** Loads the operator's files; throws `CdvTableError` when they do not validate (fail fast at start-up). */
  static async start(options: CdvEngineOptions): Promise<CdvEngine> {
    return new CdvEngine(await CdvTables.load(options), options);
  }

  get tables(): CdvTables {
    return this.#tables;
  }

  get version(): CdvTablesVersion {
    return this.#tables.version;
  }

  verify(request: CdvRequest): CdvOutcome {
    return this.#tables.verify(request);
  }

  /** Subscribes to reload and watch events; returns the unsubscribe function. */
  onEvent(listener: CdvEngineListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Subscribes to reload outcomes only (`reloaded`, `reload-failed`); returns the unsubscribe function. */
  onReload(listener: CdvReloadListener): () => void {
    return this.onEvent((event) => {
      if (event.type !== 'watch-error') listener(event);
    });
  }

  /**
   * Re-reads both files and swaps them in when they validate; otherwise keeps the tables in force. Never
   * rejects: the outcome is in the result (and in the event listeners receive). Reloads run one at a time,
   * in call order.
   */
  reload(trigger: CdvReloadTrigger = 'manual'): Promise<CdvReloadEvent> {
    const run = this.#queue.then(() => this.#reloadNow(trigger));
    this.#queue = run;
    return run;
  }

  async #reloadNow(trigger: CdvReloadTrigger): Promise<CdvReloadEvent> {
    const previous = this.#tables.version;
    let event: CdvReloadEvent;
    try {
      const tables = await CdvTables.load(this.#options);
      this.#tables = tables;
      event = {
        type: 'reloaded',
        trigger,
        version: tables.version,
        previous,
        changed:
          tables.version.parameters.sha256 !== previous.parameters.sha256 ||
          tables.version.branches.sha256 !== previous.branches.sha256,
      };
    } catch (err) {
      event = { type: 'reload-failed', trigger, error: asAppError(err), version: previous };
    }
    this.#emit(event);
    return event;
  }

  /**
   * Reloads when either file changes. Watches the files' directories rather than the files, because
   * operators (and editors) usually replace a file by renaming a new one over it, which a watch on the old
   * file would miss. The watchers do not keep the process alive. Calling it again changes nothing.
   */
  watch(options: CdvWatchOptions = {}): void {
    if (this.#watchers.length > 0) return;
    const debounceMs = options.debounceMs ?? 500;
    const files = [resolve(this.#options.parameterFile), resolve(this.#options.branchFile)];
    const directories = new Map<string, Set<string>>();
    for (const file of files) {
      const names = directories.get(dirname(file)) ?? new Set<string>();
      names.add(basename(file));
      directories.set(dirname(file), names);
    }
    const schedule = (): void => {
      clearTimeout(this.#debounce);
      this.#debounce = setTimeout(() => {
        this.#debounce = undefined;
        void this.reload('watch');
      }, debounceMs);
      this.#debounce.unref();
    };
    try {
      for (const [directory, names] of directories) {
        const watcher = watchDirectory(directory, { persistent: false }, (_event, filename) => {
          if (filename === null || names.has(filename)) schedule();
        });
        watcher.on('error', (err) => {
          this.#emit({ type: 'watch-error', error: asAppError(err) });
        });
        this.#watchers.push(watcher);
      }
    } catch (err) {
      this.unwatch();
      throw new AppError('CONFIG_INVALID', `cannot watch the CDV table files: ${errorMessage(err)}`, {
        cause: err,
      });
    }
  }

  /** Stops watching; a pending debounced reload is dropped. */
  unwatch(): void {
    clearTimeout(this.#debounce);
    this.#debounce = undefined;
    for (const watcher of this.#watchers) watcher.close();
    this.#watchers = [];
  }

  /** Stops watching and drops listeners; verification keeps working on the tables in force. */
  close(): void {
    this.unwatch();
    this.#listeners.clear();
  }

  /** A listener that throws is ignored, so one faulty subscriber cannot stop the others or a reload. */
  #emit(event: CdvEngineEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // Deliberately ignored; see the method comment.
      }
    }
  }
}

function asAppError(err: unknown): AppError {
  return isAppError(err) ? err : new AppError('INTERNAL', errorMessage(err), { cause: err });
}

/**
 * Environment variables for a service that verifies accounts; spread into the service's config spec.
 * The files are licensed reference data the operator holds, so there is no default path.
 */
export const cdvConfig = defineConfig({
  CDV_PARAMETER_FILE: str({ doc: 'Path of the CDV parameter file (format rp-cdv-parameters/1)' }),
  CDV_BRANCH_FILE: str({ doc: 'Path of the CDV branch file (format rp-cdv-branches/1)' }),
  CDV_UNKNOWN_EXCEPTION_CODES: oneOf(['reject', 'skip'] as const, {
    default: 'reject',
    doc: 'Exception codes without a registered rule: refuse the file (reject) or verify those rows as SKIPPED',
  }),
  CDV_WATCH: bool({ default: true, doc: 'Reload the tables when either file changes' }),
  CDV_WATCH_DEBOUNCE: duration({ default: 500, doc: 'Quiet time after a file change before reloading' }),
});

/**
 * Labels describing the loaded tables, for an info-style gauge (value 1) such as `rp_cdv_tables_info`:
 * reset the gauge and set it with the new labels on every `reloaded` event.
 */
export function cdvVersionLabels(version: CdvTablesVersion): Record<string, string> {
  return {
    parameters_name: version.parameters.name,
    parameters_version: version.parameters.version,
    parameters_effective: version.parameters.effectiveDate,
    parameters_sha256: version.parameters.sha256.slice(0, 12),
    branches_name: version.branches.name,
    branches_version: version.branches.version,
    branches_effective: version.branches.effectiveDate,
    branches_sha256: version.branches.sha256.slice(0, 12),
  };
}
