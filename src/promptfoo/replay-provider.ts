/**
 * A promptfoo provider that replays recorded predictions instead of calling a model, so that runs
 * made elsewhere (a notebook, an agent framework, a Spider/BIRD submission) are graded by the
 * ladder in promptfoo.
 *
 * ```yaml
 * providers:
 *   - id: file://providers/replay.ts          # or: package:text2sql-ladder:providers.replay is NOT supported
 *     label: strong                            #     by promptfoo; use file://node_modules/text2sql-ladder/dist/providers/replay.js
 *     config:
 *       predictions: providers/recordings/warehouse-strong.jsonl   # relative to the config file's folder
 *       # format: jsonl (default for .jsonl/.json lines) | lines (one SQL per line, Spider) | bird (JSON object)
 *       # key: id      (the test var holding the key; default `id` for jsonl, `index` for lines/bird)
 * ```
 *
 * Formats:
 * - `jsonl`: one `{"id": "...", "output": <string or protocol object>}` per line; blank lines skipped.
 *   An agent's run is recorded with its trajectory in the output (`{"sql", "steps": [...]}`,
 *   docs/trajectories.md) and replayed as recorded; a malformed step is found when the file is
 *   read and names the line, the item and the step. (Reading promptfoo's traces into steps is a
 *   later source: src/trajectory/steps.ts.)
 * - `lines`: one prediction per line, aligned with the gold order (Spider `pred.sql`); the key is
 *   the 0-based line number. A trailing `\t<db_id>` is removed (Spider's gold format).
 * - `bird`: BIRD's `predict_dev.json`, `{"0": "SQL\t----- bird -----\tdb_id", …}`; the key is the
 *   object key.
 *
 * A missing prediction is a **failure of that item, not an ERROR row**: the recording is the
 * model's output, and a model that produced nothing for an item got it wrong (leaderboards count it
 * as 0); an ERROR row would instead say the evaluation itself broke and would drop the item from
 * promptfoo's pass/fail counts. The provider returns the text
 * `[no recorded prediction for item <key> in <file>]` with `metadata.replay.missing = true`; the
 * ladder and the rung assertions read that flag and fail the item at L1 with this reason, even for
 * `clarify`/`refuse` items (where text without SQL would otherwise count as declining).
 *
 * Misuse (no `predictions` option, a misspelt option, a missing file, a malformed line, a duplicate
 * id) makes every test of the provider an ERROR row whose message names the option or the
 * recording's `file:line` (and prints that line once on stderr when promptfoo loads the provider):
 * promptfoo does not catch a provider's constructor, so a throw there would end the whole run with
 * a stack instead of a message.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { LadderError, isMisuseError } from '../errors.js';
import { optionReader } from '../options.js';
import { defaultRecordingFormat, loadRecording, REPLAY_FORMATS, type Recording, type ReplayFormat } from '../report/read-recording.js';

export { loadRecording, type Recording, type ReplayFormat } from '../report/read-recording.js';

/** The provider's `config` block. */
export interface ReplayConfig {
  /**
   * Path of the recording, relative to `basePath` (the config file's folder) unless absolute; when
   * no such file exists there, relative to the working directory.
   */
  readonly predictions: string;
  /** Default: `lines` for `.sql`/`.txt`, `bird` for `.json`, `jsonl` otherwise. */
  readonly format?: ReplayFormat;
  /** The test var holding an item's key. Default: `id` for `jsonl`, `index` for `lines`/`bird`. */
  readonly key?: string;
  /** Set by promptfoo: the config file's folder (may be relative to the working directory). */
  readonly basePath?: string;
}

/** What `metadata.replay` holds on every response. */
export interface ReplayMetadata {
  readonly file: string;
  readonly key: string;
  /** True when the recording has no prediction for this key. */
  readonly missing: boolean;
}

/** The slice of promptfoo's provider options this provider reads. */
export interface ReplayProviderOptions {
  readonly id?: string;
  readonly label?: string;
  /** Checked at construction; see {@link ReplayConfig}. */
  readonly config?: Readonly<Record<string, unknown>>;
}

/** The slice of promptfoo's call context this provider reads. */
export interface ReplayCallContext {
  readonly vars?: Record<string, unknown>;
}

/** The text returned for a missing prediction (also the ladder's L1 reason). */
export function missingPredictionMessage(key: string, file: string): string {
  return `no recorded prediction for item ${key} in ${file}`;
}

/** The provider's config keys (`basePath` is set by promptfoo). */
const CONFIG_KEYS = ['predictions', 'format', 'key', 'basePath'] as const;

/**
 * Reads and checks the config and loads the recording.
 * @throws LadderError `invalid_option` naming `config.<option>`, or `input_invalid` naming the
 *   recording's `file:line`.
 */
function loadFromConfig(options: ReplayProviderOptions): { recording: Recording; keyVar: string; displayFile: string; file: string } {
  const read = optionReader(options.config ?? {}, { prefix: 'config.', at: 'providers/replay: ' });
  // Validate arguments.
  read.unknownKeys(CONFIG_KEYS);
  const predictions = read.string('predictions', 'the path of a recording file');
  if (predictions === undefined) throw read.invalid('predictions', 'the path of a recording file', undefined);
  const requestedFormat = read.oneOf('format', REPLAY_FORMATS);
  const keyOption = read.string('key', 'a var name');
  const basePath = read.string('basePath', 'a folder');
  // Interpret options: relative to the config folder; when no such file exists there, relative to
  // the working directory (paths handed in through environment variables).
  const fromConfig = path.resolve(basePath ?? '.', predictions);
  const file = !existsSync(fromConfig) && existsSync(path.resolve(predictions)) ? path.resolve(predictions) : fromConfig;
  const format = requestedFormat ?? defaultRecordingFormat(file);
  return { recording: loadRecording(file, format), keyVar: keyOption ?? (format === 'jsonl' ? 'id' : 'index'), displayFile: predictions, file };
}

/**
 * The replay provider. promptfoo requires a default-exported class for `file://` providers.
 * `id()` is `replay:<file name>` unless an `id` other than the file reference is given.
 *
 * A mistake in the config or the recording (a misspelt option, a missing file, a malformed line, a
 * duplicate id) is reported **as an ERROR row for every test of this provider**, each naming the
 * option or the recording's `file:line`, and once on stderr when promptfoo loads the provider —
 * not as a crash with a stack: promptfoo does not catch a provider's constructor.
 */
export default class ReplayProvider {
  /** The loaded recording (empty when the config or the recording is wrong, see {@link problem}). */
  readonly recording: Recording;
  /** The test var that holds the key. */
  readonly keyVar: string;
  /** promptfoo's column label, when set. */
  readonly label: string | undefined;
  /** The config or recording mistake every call reports as an ERROR row; `undefined` when fine. */
  readonly problem: LadderError | undefined;
  private readonly providerId: string;
  /** The recording path as written in the config (for messages). */
  private readonly displayFile: string;

  constructor(options: ReplayProviderOptions = {}) {
    let loaded: ReturnType<typeof loadFromConfig> | undefined;
    try {
      loaded = loadFromConfig(options);
    } catch (error) {
      if (!isMisuseError(error)) throw error;
      this.problem = error;
      process.stderr.write(`text2sql-ladder: ${error.message} (every test of this provider is an ERROR row)\n`);
    }
    this.recording = loaded?.recording ?? { file: '', format: 'jsonl', outputs: new Map() };
    this.keyVar = loaded?.keyVar ?? 'id';
    this.displayFile = loaded?.displayFile ?? '';
    this.label = options.label;
    const fileName = loaded === undefined ? 'unconfigured' : path.basename(loaded.file);
    this.providerId = options.id && !options.id.startsWith('file://') ? options.id : `replay:${fileName}`;
  }

  /** The provider id promptfoo shows when no label is set. */
  id(): string {
    return this.providerId;
  }

  /** Returns the recorded output for the test's key (see the module doc for a missing one). */
  async callApi(_prompt: string, context?: ReplayCallContext): Promise<{ output: unknown; metadata: { replay: ReplayMetadata } } | { error: string }> {
    if (this.problem !== undefined) return { error: this.problem.message };
    const raw = context?.vars?.[this.keyVar];
    const key = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : '';
    if (key === '') return { error: `providers/replay: the test has no var "${this.keyVar}" to look up a prediction (config.key)` };
    const found = this.recording.outputs.has(key);
    const metadata = { replay: { file: this.displayFile, key, missing: !found } };
    if (!found) return { output: `[${missingPredictionMessage(key, this.displayFile)}]`, metadata };
    return { output: this.recording.outputs.get(key), metadata };
  }

  /** For promptfoo's logs. */
  toString(): string {
    return `[ReplayProvider ${this.displayFile}]`;
  }
}
