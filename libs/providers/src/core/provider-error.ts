import { AocError } from '@aoc/errors';

/** Error codes of provider packages; `detail` is always safe to show (credential-redacted). */
export type ProviderErrorCode =
  | 'PROVIDER.INPUT_INVALID'
  | 'PROVIDER.TARGET_REJECTED'
  | 'PROVIDER.WINDOW_INVALID'
  | 'PROVIDER.QUERY_REJECTED'
  | 'PROVIDER.HTTP_4XX'
  | 'PROVIDER.HTTP_5XX'
  | 'PROVIDER.TIMEOUT'
  | 'PROVIDER.BUDGET_EXHAUSTED'
  | 'PROVIDER.OUTPUT_TOO_LARGE'
  | 'PROVIDER.UNREACHABLE'
  | 'PROVIDER.AUTH_FAILED'
  /** Authentication or bootstrap did not finish within its outer limit (3 min by default). */
  | 'PROVIDER.AUTH_TIMEOUT'
  | 'PROVIDER.RESPONSE_INVALID';

export class ProviderError extends AocError {
  constructor(
    code: ProviderErrorCode,
    /** Safe detail, e.g. the provider's own (redacted) rejection text or the invalid field. */
    readonly detail: string,
    options: { retryable?: boolean; httpStatus?: number } = {},
  ) {
    super(code, detail, { retryable: options.retryable ?? false, details: options.httpStatus ? { httpStatus: options.httpStatus } : {} });
  }
}
