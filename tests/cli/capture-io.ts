/** A command's stdout and stderr captured as text, for `run…Command(options, io)` calls in tests. */
export interface CapturedIo {
  readonly io: { stdout: { write(text: string): boolean }; stderr: { write(text: string): boolean } };
  /** Everything written to stdout so far. */
  readonly out: () => string;
  /** Everything written to stderr so far. */
  readonly err: () => string;
}

/** A fresh capture: each call starts empty. */
export function capture(): CapturedIo {
  let out = '';
  let err = '';
  return { io: { stdout: { write: (text) => ((out += text), true) }, stderr: { write: (text) => ((err += text), true) } }, out: () => out, err: () => err };
}
