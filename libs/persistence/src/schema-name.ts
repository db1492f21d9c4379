/** Postgres schema owned by a role: `provider-executor` becomes `provider_executor`. */
export function schemaOf(role: string): string {
  const schema = role.replace(/-/g, '_');
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name derived from role "${role}"`);
  return schema;
}

/** Double-quotes an identifier that has already been validated by schemaOf. */
export function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`refusing to quote unsafe identifier "${name}"`);
  return `"${name}"`;
}
