import { AocError } from '@aoc/errors';

/** The AocError a promise rejects with (fails the test when it resolves or rejects otherwise). */
export async function rejectionOf(promise: Promise<unknown>): Promise<AocError> {
  return errorOrFail(await promise.then(() => undefined, (error: unknown) => error ?? null));
}

/** The AocError a call throws (fails the test when it returns or throws otherwise). */
export function thrownBy(call: () => unknown): AocError {
  try {
    call();
  } catch (error) {
    return errorOrFail(error ?? null);
  }
  return errorOrFail(undefined);
}

function errorOrFail(error: unknown): AocError {
  if (error instanceof AocError) return error;
  throw new Error(error === undefined ? 'expected an AocError, nothing was thrown' : `expected an AocError, got ${String(error)}`);
}
