/**
 * The one check for a JSON object: read code (stored records, result files, config blocks) walks
 * values whose shape is not known yet.
 */

/** True for an object that is not an array or null (a parsed JSON object, a plain record). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
