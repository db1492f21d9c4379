import { AocError } from '@aoc/errors';
import type { ModelPort, ModelRequest } from './model-port';

export interface Answered<T> {
  output: T;
  /** The model that answered, or `<fallback model> (fallback: <code>)`. */
  model: string;
  /** True when the fallback answered. */
  fellBack: boolean;
}

/**
 * Asks the model; when it fails permanently (refusal, truncation, output that never validated,
 * a rejected request) the caller's deterministic fallback answers instead and the answer says so.
 * Transient failures are rethrown, so the bus's bounded retries can ask again.
 */
export async function invokeOrFallback<T>(port: ModelPort, request: ModelRequest<T>, fallback: { model: string; run: () => T }): Promise<Answered<T>> {
  try {
    const result = await port.invoke(request);
    return { output: result.output, model: result.model, fellBack: false };
  } catch (error) {
    if (error instanceof AocError && error.retryable) throw error;
    return { output: fallback.run(), model: `${fallback.model} (fallback: ${error instanceof AocError ? error.code : 'MODEL.UNEXPECTED'})`, fellBack: true };
  }
}
