/** One field of a request body that has not been parsed yet (undefined when the body is no object). */
export function bodyField(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}
