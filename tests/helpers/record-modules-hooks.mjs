// Loader hook of record-modules.mjs: records each loaded module's URL, then loads it as usual.
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  const file = process.env.RECORD_MODULES_TO;
  if (file) appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}
