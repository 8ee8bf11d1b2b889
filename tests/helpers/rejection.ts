/**
 * The error a promise rejects with; throws `expected a rejection` when it resolves, so a test that
 * awaits it fails on a call that should have thrown.
 */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}
