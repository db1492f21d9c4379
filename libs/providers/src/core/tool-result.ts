/**
 * The one result envelope every tool returns: `details` is the compact structured result and
 * `text` is exactly `JSON.stringify(details)`. Failures carry `detail_error` inside `details`
 * with the safe provider or validation detail, never a prose re-diagnosis.
 */
export interface ToolSuccess<D> {
  ok: true;
  details: D;
  text: string;
}

export interface ToolFailureDetails {
  error_code: string;
  detail_error: string;
  [key: string]: unknown;
}

export interface ToolFailure {
  ok: false;
  details: ToolFailureDetails;
  text: string;
}

export type ToolResult<D> = ToolSuccess<D> | ToolFailure;

export function success<D>(details: D): ToolSuccess<D> {
  return { ok: true, details, text: JSON.stringify(details) };
}

export function failure(errorCode: string, detailError: string, extra: Record<string, unknown> = {}): ToolFailure {
  const details: ToolFailureDetails = { ...extra, error_code: errorCode, detail_error: detailError };
  return { ok: false, details, text: JSON.stringify(details) };
}
